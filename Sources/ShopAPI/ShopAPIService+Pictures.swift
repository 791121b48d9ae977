import Foundation
import OpenAPIRuntime
import ShopModels
import ShopPorts

/// A merchant's picture upload: the file's bytes, checked as a catalog's picture files are and kept by digest; the
/// answer is the reference a product's `pictures` names it by.
extension ShopAPIService {
    func uploadPicture(_ input: Operations.UploadPicture.Input) async throws -> Operations.UploadPicture.Output {
        _ = try APICaller.required(.merchant)
        guard let intake = commerce.pictureIntake else { throw APIProblem(.unavailable, "This server does not keep pictures.") }
        let (body, declared): (HTTPBody, String) =
            switch input.body {
            case .png(let body): (body, "image/png")
            case .jpeg(let body): (body, "image/jpeg")
            }
        let bytes: [UInt8]
        do {
            bytes = Array(try await Data(collecting: body, upTo: APIBodyLimit.pictureUploadBytes))
        } catch {
            throw APIProblem(.tooLarge, "The picture is over \(APIBodyLimit.pictureUploadBytes) bytes.")
        }
        let taken: PictureIntakeResult
        do {
            taken = try await intake.take(bytes, declared: declared)
        } catch {
            if error.reason == .storage { throw APIProblem(.unavailable, error.message, retryAfter: 5) }
            throw APIProblem(.validation, error.message, errors: [.init(field: "body", message: error.message)])
        }
        let reference = taken.reference
        let answer = Components.Schemas.UploadedPicture(
            picture: .init(file: reference.file, sha256: reference.digest, width: reference.width, height: reference.height),
            mediaType: .init(rawValue: taken.mediaType) ?? .imagePng, bytes: taken.byteCount)
        return taken.isNew ? .created(.init(body: .json(answer))) : .ok(.init(body: .json(answer)))
    }
}
