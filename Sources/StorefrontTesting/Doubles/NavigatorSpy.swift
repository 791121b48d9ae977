import Foundation
import Synchronization
import StoreClients
import StoreModels
import StorefrontCore

/// A navigator that records destinations.
@MainActor
public final class NavigatorSpy: Navigator {
    public private(set) var destinations: [Destination] = []
    public init() {}
    public func navigate(to destination: Destination) { destinations.append(destination) }
}
