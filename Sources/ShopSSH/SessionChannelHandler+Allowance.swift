import NIOCore
import NIOSSH
import ShopSessions

/// What a channel's requests cost its connection (`ConnectionAllowance`), and the connection closed once it is spent.
extension SessionChannelHandler {
    /// Takes `event` from the connection's allowance; false, with the connection closing, once the allowance is spent.
    func withinAllowance(_ event: Any, context: ChannelHandlerContext) -> Bool {
        guard Self.costsAllowance(event) else { return true }
        let spent = self.context.budget.take(.request)
        guard !spent.allowed else { return true }
        if spent.firstRefusal {
            self.context.refusals.log(
                "flood", "closed the connection from \(self.context.peer): more than \(self.context.allowance.requests) channel requests")
        }
        context.channel.parent?.close(promise: nil)
        return false
    }

    /// True for the requests a connection's allowance counts: all but window changes, which a terminal makes whenever it is dragged.
    private static func costsAllowance(_ event: Any) -> Bool {
        switch event {
        case is SSHChannelRequestEvent.PseudoTerminalRequest, is SSHChannelRequestEvent.EnvironmentRequest, is SSHChannelRequestEvent.ShellRequest,
            is SSHChannelRequestEvent.ExecRequest, is SSHChannelRequestEvent.SubsystemRequest, is SSHChannelRequestEvent.SignalRequest,
            is SSHChannelRequestEvent.LocalFlowControlRequest:
            true
        default:
            false
        }
    }
}
