import PseudoTerminal
import Testing

/// How a session's end is told to an SSH client: always a status 0 to 255, whatever the process table said.
@Suite("Process terminations")
struct ProcessTerminationTests {
    @Test(arguments: [
        (ProcessTermination.exited(0), Int32(0)), (.exited(75), 75), (.exited(-1), 255), (.exited(300), 255),
        (.signalled(9), 137), (.signalled(200), 255), (.signalled(0), 255), (.unknown, 255),
    ])
    func theShellStatusIsAlwaysOneByte(_ termination: ProcessTermination, _ status: Int32) {
        #expect(termination.shellStatus == status)
    }
}
