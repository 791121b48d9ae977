import StoreClients

/// Runs one sign-in: a fresh controller from the factory for every request, awaited to its outcome.
@MainActor
public final class SignInFlow {
    private let makeController: SignInControllerFactory
    private var pending: [ObjectIdentifier: Attempt] = [:]

    public init(makeController: @escaping SignInControllerFactory) {
        self.makeController = makeController
    }

    /// Asks for a credential with the given scopes.
    ///
    /// Order of calls: factory(requests) → controller.delegate = self → performRequests() →
    /// the controller reports `didCompleteWith` a credential or an error.
    public func signIn(_ request: SignInRequest = SignInRequest()) async -> Result<any SignInCredential, SignInError> {
        let controller = makeController([request])
        let attempt = Attempt()
        pending[ObjectIdentifier(controller)] = attempt
        controller.delegate = attempt
        let result = await withCheckedContinuation { continuation in
            attempt.continuation = continuation
            controller.performRequests()
        }
        pending[ObjectIdentifier(controller)] = nil
        return result
    }

    /// The delegate of one controller; resumes the waiting sign-in exactly once.
    private final class Attempt: SignInAuthorizationControllerDelegate {
        var continuation: CheckedContinuation<Result<any SignInCredential, SignInError>, Never>?

        func signInController(_ controller: any SignInAuthorizationControlling, didCompleteWith credential: any SignInCredential) {
            continuation?.resume(returning: .success(credential))
            continuation = nil
        }

        func signInController(_ controller: any SignInAuthorizationControlling, didCompleteWith error: SignInError) {
            continuation?.resume(returning: .failure(error))
            continuation = nil
        }
    }
}
