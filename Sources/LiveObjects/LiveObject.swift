/// A class that other threads may change while a test reads it: `Mirror` shows its type, never its fields.
///
/// Swift Testing reflects the values of a failed expectation with `Mirror`, and `Mirror` reads stored properties
/// without taking their locks or their actor. Reading a class that an event loop, a worker or an actor is changing
/// at that moment crashes the whole test process, and the crash hides which expectation failed.
/// Every class and actor in Sources is one (`scripts/check-live-objects` holds that true).
public protocol LiveObject: AnyObject, CustomReflectable {}

extension LiveObject {
    public var customMirror: Mirror { Mirror(self, children: [:], displayStyle: .class) }
}
