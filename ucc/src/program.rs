//! An outside program on the other end of two pipes, held as the UCC
//! referee holds a bot: started by `sh -c` in a process group of its own,
//! stopped (SIGSTOP) while it is not its turn so that it cannot think on the
//! opponent's time or take its cores, allowed one reply line per question
//! within a time limit, and killed with its whole group when it is dropped.
//!
//! Whatever the program does, the caller gets a [`Failure`] it can record
//! and never waits past the limit: a reader thread turns the program's
//! output into lines (each at most [`MAX_LINE`] bytes, [`MAX_OUTPUT`] in
//! all), and the caller waits for the next line with a deadline.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossbeam_channel::{bounded, Receiver, RecvTimeoutError};

/// The longest reply line a program may write: a move is 14 bytes, a setup
/// line 10.
pub const MAX_LINE: usize = 4096;
/// All a program may write on its standard output in one game; a game of
/// the referee's 1000-turn cap takes about 20 KB of moves.
pub const MAX_OUTPUT: usize = 1 << 20;
/// How much of the program's standard error is kept for the reason it lost.
const STDERR_TAIL: usize = 2048;

/// Why a program did not give a usable reply: it loses the game for it.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum Failure {
    #[error("cannot start `{command}`: {why}")]
    Start { command: String, why: String },
    #[error("no reply within {0:?}")]
    Timeout(Duration),
    #[error("ended its output ({status}){stderr}")]
    Exited { status: String, stderr: String },
    #[error("cannot be written to ({why}){stderr}")]
    Write { why: String, stderr: String },
    #[error("floods its output: {0}")]
    Flood(String),
}

/// What the reader thread saw.
enum Output {
    Line(String),
    /// End of output: the program exited or closed it (or it could not be read).
    End,
    Flood(String),
}

/// A running outside program (see the module documentation).
pub struct Program {
    command: String,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Output>,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// The thread that keeps the stderr tail, finished once stderr closed.
    stderr_thread: std::thread::JoinHandle<()>,
    /// The group is stopped between replies.
    stopped: bool,
    ended: bool,
}

impl Program {
    /// Starts `command` under `sh -c` in a new process group, stopped until
    /// it is first asked something.
    pub fn start(command: &str) -> Result<Program, Failure> {
        let start_failure = |why: String| Failure::Start { command: command.to_string(), why };
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|e| start_failure(e.to_string()))?;
        let stdout = child.stdout.take().expect("piped");
        let stderr_pipe = child.stderr.take().expect("piped");
        // Room for every line of a game: a program never blocks on its output
        // before its total reaches MAX_OUTPUT.
        let (send, lines) = bounded(MAX_OUTPUT / 8);
        std::thread::Builder::new()
            .name("ucc-stdout".into())
            .spawn(move || read_lines(stdout, |o| send.send(o).is_ok()))
            .map_err(|e| start_failure(e.to_string()))?;
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let tail = Arc::clone(&stderr);
        let stderr_thread = std::thread::Builder::new()
            .name("ucc-stderr".into())
            .spawn(move || keep_tail(stderr_pipe, &tail))
            .map_err(|e| start_failure(e.to_string()))?;
        let mut program = Program {
            command: command.to_string(),
            stdin: child.stdin.take(),
            child,
            lines,
            stderr,
            stderr_thread,
            stopped: false,
            ended: false,
        };
        program.signal(libc::SIGSTOP);
        program.stopped = true;
        Ok(program)
    }

    pub fn command(&self) -> &str {
        &self.command
    }

    fn signal(&self, signal: i32) {
        // The group id is the child's pid (`process_group(0)`). A group
        // already gone makes this fail harmlessly.
        let pgid = self.child.id() as libc::pid_t;
        // SAFETY: killpg only sends a signal; it touches no memory of ours.
        unsafe {
            libc::killpg(pgid, signal);
        }
    }

    /// Writes one line to the program (it reads it when it runs again).
    pub fn send(&mut self, line: &str) -> Result<(), Failure> {
        let result = match self.stdin.as_mut() {
            Some(stdin) => writeln!(stdin, "{line}").and_then(|()| stdin.flush()),
            None => Err(std::io::Error::other("its input is closed")),
        };
        result.map_err(|e| Failure::Write { why: e.to_string(), stderr: self.stderr_note() })
    }

    /// Lets the program run until it has written one line or `limit` has
    /// passed, then stops it again. The line comes without its newline.
    pub fn reply(&mut self, limit: Duration) -> Result<String, Failure> {
        if self.ended {
            return Err(self.exited());
        }
        if self.stopped {
            self.signal(libc::SIGCONT);
            self.stopped = false;
        }
        let got = self.lines.recv_timeout(limit);
        self.signal(libc::SIGSTOP);
        self.stopped = true;
        match got {
            Ok(Output::Line(line)) => Ok(line),
            Ok(Output::Flood(why)) => Err(Failure::Flood(why)),
            Ok(Output::End) | Err(RecvTimeoutError::Disconnected) => {
                self.ended = true;
                Err(self.exited())
            }
            Err(RecvTimeoutError::Timeout) => Err(Failure::Timeout(limit)),
        }
    }

    /// How the program ended: its exit status once it has one (waited for
    /// briefly: its output ends just before it exits), and its last words.
    fn exited(&mut self) -> Failure {
        self.signal(libc::SIGCONT);
        let mut status = None;
        for _ in 0..50 {
            if let Ok(Some(s)) = self.child.try_wait() {
                status = Some(s);
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        let status = status.map_or("still running, its output closed".to_string(), |s| s.to_string());
        // Its last words may still be in the pipe.
        for _ in 0..50 {
            if self.stderr_thread.is_finished() {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        Failure::Exited { status, stderr: self.stderr_note() }
    }

    /// `: <last line of stderr>` when it wrote any.
    fn stderr_note(&self) -> String {
        let tail = self.stderr.lock().map(|t| String::from_utf8_lossy(&t).into_owned()).unwrap_or_default();
        match tail.lines().rev().find(|l| !l.trim().is_empty()) {
            Some(last) => format!("; its stderr ends `{}`", last.trim().escape_debug()),
            None => String::new(),
        }
    }

    /// Tells the program the game is over (best effort) and ends its group.
    pub fn finish(mut self, quit: &str) {
        if !self.ended && self.send(quit).is_ok() {
            self.signal(libc::SIGCONT);
            // The referee kills its bots "within microseconds"; we allow a
            // moment for a clean exit, as a courtesy to their logs.
            for _ in 0..10 {
                if matches!(self.child.try_wait(), Ok(Some(_))) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        }
    }
}

impl Drop for Program {
    /// Kills the whole group, stopped or not, and reaps the shell, so that
    /// nothing the program started outlives the game.
    fn drop(&mut self) {
        self.stdin = None;
        self.signal(libc::SIGKILL);
        self.signal(libc::SIGCONT);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The reader thread: splits the output into lines (without `\n`, a trailing
/// `\r` kept as the referee keeps it), refusing a line longer than
/// `MAX_LINE` or output past `MAX_OUTPUT`.
fn read_lines(stdout: impl Read, mut deliver: impl FnMut(Output) -> bool) {
    let mut reader = BufReader::new(stdout);
    let mut total = 0usize;
    loop {
        let mut line = Vec::new();
        let read = (&mut reader).take(MAX_LINE as u64 + 1).read_until(b'\n', &mut line);
        let output = match read {
            Ok(0) | Err(_) => Output::End,
            Ok(n) => {
                total += n;
                if line.last() == Some(&b'\n') {
                    line.pop();
                    if total > MAX_OUTPUT {
                        Output::Flood(format!("more than {MAX_OUTPUT} bytes of output in one game"))
                    } else {
                        Output::Line(String::from_utf8_lossy(&line).into_owned())
                    }
                } else if line.len() > MAX_LINE {
                    Output::Flood(format!("a line of more than {MAX_LINE} bytes"))
                } else {
                    // The output ended inside a line: the referee never sees it.
                    Output::End
                }
            }
        };
        let last = !matches!(output, Output::Line(_));
        if !deliver(output) || last {
            return;
        }
    }
}

/// The stderr thread: keeps the last `STDERR_TAIL` bytes.
fn keep_tail(mut stderr: impl Read, tail: &Mutex<Vec<u8>>) {
    let mut buf = [0u8; 1024];
    while let Ok(n) = stderr.read(&mut buf) {
        if n == 0 {
            return;
        }
        let Ok(mut t) = tail.lock() else { return };
        t.extend_from_slice(&buf[..n]);
        if t.len() > STDERR_TAIL {
            let cut = t.len() - STDERR_TAIL;
            t.drain(..cut);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(bytes: &[u8]) -> Vec<String> {
        let mut out = Vec::new();
        read_lines(bytes, |o| {
            out.push(match o {
                Output::Line(l) => format!("line {l}"),
                Output::End => "end".into(),
                Output::Flood(why) => format!("flood {why}"),
            });
            true
        });
        out
    }

    #[test]
    fn output_becomes_bounded_lines() {
        assert_eq!(lines_of(b"a\nb c\r\n"), ["line a", "line b c\r", "end"]);
        assert_eq!(lines_of(b"a\nunfinished"), ["line a", "end"]);
        let long = vec![b'x'; MAX_LINE + 10];
        assert_eq!(lines_of(&long)[0], format!("flood a line of more than {MAX_LINE} bytes"));
        let many = b"0 0 UP\n".repeat(MAX_OUTPUT / 7 + 2);
        let seen = lines_of(&many);
        assert!(seen.last().unwrap().starts_with("flood more than"), "{:?}", seen.last());
    }

    #[test]
    fn a_program_answers_is_stopped_between_replies_and_dies_with_its_group() {
        let mut p = Program::start("read a; echo got $a; sleep 1000 & read b; echo $b").unwrap();
        p.send("one").unwrap();
        assert_eq!(p.reply(Duration::from_secs(10)).unwrap(), "got one");
        let pgid = p.child.id();
        // Stopped: state T in /proc (a signal is delivered asynchronously,
        // so the state may read R for a moment after kill() returns).
        let state = || std::fs::read_to_string(format!("/proc/{pgid}/stat")).unwrap();
        let stopped = (0..200).any(|_| {
            let stopped = state().split_whitespace().nth(2) == Some("T");
            if !stopped {
                std::thread::sleep(Duration::from_millis(5));
            }
            stopped
        });
        assert!(stopped, "{}", state());
        assert_eq!(p.reply(Duration::from_millis(200)), Err(Failure::Timeout(Duration::from_millis(200))));
        drop(p);
        // The shell and its `sleep` child are gone.
        std::thread::sleep(Duration::from_millis(50));
        let alive = std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|e| std::fs::read_to_string(e.ok()?.path().join("stat")).ok())
            .filter(|stat| {
                let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or("").split_whitespace().collect();
                fields.get(2) == Some(&pgid.to_string().as_str()) && fields.first() != Some(&"Z")
            })
            .count();
        assert_eq!(alive, 0, "processes of group {pgid} outlived the program");
    }

    #[test]
    fn a_program_that_dies_says_how() {
        let mut p = Program::start("echo dying >&2; exit 3").unwrap();
        let err = p.reply(Duration::from_secs(10)).unwrap_err();
        assert!(
            matches!(&err, Failure::Exited { status, stderr } if status.contains('3') && stderr.contains("dying")),
            "{err}"
        );
        assert!(matches!(
            Program::start("exit 0").unwrap().reply(Duration::from_secs(10)),
            Err(Failure::Exited { .. })
        ));
    }
}
