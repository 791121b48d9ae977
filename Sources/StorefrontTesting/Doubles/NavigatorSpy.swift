import Foundation
import LiveObjects
import ShopModels
import ShopPorts
import StorefrontCore
import Synchronization

/// A navigator that records destinations.
@MainActor
public final class NavigatorSpy: Navigator {
    public private(set) var destinations: [Destination] = []
    public init() {}
    public func navigate(to destination: Destination) { destinations.append(destination) }
}

extension NavigatorSpy: LiveObject {}
