//! `maestro shell`: the conversation loop, over any source of user lines.
//!
//! The loop reads one user line, runs it as a turn through a
//! [`Session`], and repeats until the end of input. Where the lines come
//! from decides whether a turn can be interrupted (barge-in, D13):
//!
//! * [`ReadLines`] reads on the caller's thread, and only when the loop
//!   asks for the next line. Nothing is ever waiting while a turn runs, so
//!   every turn is handled to its end before the next line is read. This is
//!   the scriptable mode for piped input (spec §5).
//! * [`TypeAhead`] is fed by a reader thread (or any channel), so a line
//!   can arrive while a turn runs. It cancels that turn: the running tool
//!   gets `CancelledError`, no further LLM call is made, an LLM answer
//!   that arrives after the line is dropped (see [`Session::turn`]), and
//!   the line is then handled as the next turn. The end of input (Ctrl-D)
//!   during a turn cancels it the same way, and the loop then ends. This is
//!   the terminal mode.
//!
//! Blank lines are skipped in both modes; in a terminal, pressing Enter on
//! an empty line does not interrupt anything.

use crate::runtime::driver::{Session, TurnEnd};
use crate::runtime::engine::{Event, ToolState};
use crate::runtime::llm::LlmProvider;
use std::cell::RefCell;
use std::io::BufRead;
use std::sync::mpsc::{Receiver, TryRecvError};

/// Where the shell's user lines come from.
pub trait LineSource {
    /// The next line (without its line ending), blocking until one comes;
    /// `None` at the end of input.
    fn next_line(&mut self) -> Option<String>;
    /// Whether the next line, or the end of input, is already waiting,
    /// without blocking and without taking it. While a turn runs, `true`
    /// cancels the turn.
    fn waiting(&self) -> bool;
}

/// Lines read from a reader on the caller's thread, one when asked: never
/// waiting, so no turn is ever interrupted (piped input).
pub struct ReadLines<R: BufRead>(pub R);

impl<R: BufRead> LineSource for ReadLines<R> {
    fn next_line(&mut self) -> Option<String> {
        let mut line = String::new();
        match self.0.read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(trim_line_ending(&line).to_string()),
        }
    }

    fn waiting(&self) -> bool {
        false
    }
}

/// Lines that arrive on a channel whenever the user types them, also while
/// a turn runs (a terminal). A closed channel is the end of input.
pub struct TypeAhead {
    lines: Receiver<String>,
    /// A line (or the end of input, `None`) seen by [`LineSource::waiting`]
    /// and kept for [`LineSource::next_line`].
    peeked: RefCell<Option<Option<String>>>,
}

impl TypeAhead {
    /// Lines sent on a channel; dropping every sender ends the input.
    pub fn new(lines: Receiver<String>) -> Self {
        TypeAhead {
            lines,
            peeked: RefCell::new(None),
        }
    }

    /// Read `reader` on a background thread, sending every non-blank line.
    /// The thread ends at the end of input (or a read error), which ends
    /// the input; it is left blocked on its read when the program exits.
    pub fn spawn<R: BufRead + Send + 'static>(mut reader: R) -> Self {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || loop {
            let mut line = String::new();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {
                    let line = trim_line_ending(&line);
                    if !line.trim().is_empty() && tx.send(line.to_string()).is_err() {
                        return;
                    }
                }
            }
        });
        TypeAhead::new(rx)
    }
}

impl LineSource for TypeAhead {
    fn next_line(&mut self) -> Option<String> {
        match self.peeked.get_mut().take() {
            Some(kept) => kept,
            None => self.lines.recv().ok(),
        }
    }

    fn waiting(&self) -> bool {
        let mut peeked = self.peeked.borrow_mut();
        if peeked.is_some() {
            return true;
        }
        match self.lines.try_recv() {
            Ok(line) => *peeked = Some(Some(line)),
            Err(TryRecvError::Disconnected) => *peeked = Some(None),
            Err(TryRecvError::Empty) => return false,
        }
        true
    }
}

fn trim_line_ending(line: &str) -> &str {
    line.trim_end_matches(['\n', '\r'])
}

/// What the shell shows the user.
pub trait Terminal {
    /// A bot message, as soon as it is sent.
    fn say(&mut self, text: &str);
    /// Ready for the user's next line, and none has been typed ahead.
    fn prompt(&mut self) {}
    /// A turn ended: how, and the events it added.
    fn turn_ended(&mut self, end: TurnEnd, events: &[Event]) {
        let _ = (end, events);
    }
    /// Whether [`Terminal::tools`] wants the tool list after each turn
    /// (it is only built then).
    fn shows_tools(&self) -> bool {
        false
    }
    /// After each turn: every tool of the new state, offered or not, with
    /// its gate (`--debug` shows them, like the seeds' Inspector).
    fn tools(&mut self, tools: &[ToolState]) {
        let _ = tools;
    }
}

/// Run the conversation: one turn per non-blank line of `lines`, until the
/// end of input. A turn is cancelled as soon as `lines` has another line
/// (or the end of input) waiting; see the module documentation.
pub fn run<L: LlmProvider>(
    session: &mut Session<'_, L>,
    lines: &mut dyn LineSource,
    terminal: &mut dyn Terminal,
) {
    loop {
        if !lines.waiting() {
            terminal.prompt();
        }
        let Some(line) = lines.next_line() else {
            return;
        };
        if line.trim().is_empty() {
            continue;
        }
        let start = session.conv.events.len();
        let next: &dyn LineSource = lines;
        let end = session.turn(&line, &mut |text| terminal.say(text), &|| next.waiting());
        terminal.turn_ended(end, &session.conv.events[start..]);
        if terminal.shows_tools() {
            terminal.tools(&session.engine.tool_states(&session.conv));
        }
    }
}

/// The `--debug` lines for the tools of a state: one `tools:` line with
/// the offered tools (a gated one shows its condition), then one `hidden:`
/// line per tool of the active skill that is not offered and why.
pub fn tool_lines(tools: &[ToolState]) -> Vec<String> {
    let offered: Vec<String> = tools
        .iter()
        .filter(|t| t.offered)
        .map(|t| match &t.requires {
            Some(r) => format!("{} [requires {r}: met]", t.name),
            None => t.name.clone(),
        })
        .collect();
    let mut lines = vec![format!("tools: {}", offered.join(", "))];
    for t in tools.iter().filter(|t| !t.offered) {
        lines.push(match (&t.requires, t.gate_holds) {
            (Some(r), Some(false)) => format!("hidden: {} [requires {r}: not met]", t.name),
            _ => format!(
                "hidden: {} [withheld after search_knowledge this turn]",
                t.name
            ),
        });
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn tool_lines_show_gates_and_hidden_tools() {
        let t =
            |name: &str, offered: bool, requires: Option<&str>, holds: Option<bool>| ToolState {
                name: name.into(),
                offered,
                requires: requires.map(Into::into),
                gate_holds: holds,
            };
        let lines = tool_lines(&[
            t("activate", true, None, None),
            t("lock_card", true, Some("session.project.card"), Some(true)),
            t("process", false, Some("session.x.ok == True"), Some(false)),
            t("get_info", false, None, None),
        ]);
        assert_eq!(
            lines,
            [
                "tools: activate, lock_card [requires session.project.card: met]",
                "hidden: process [requires session.x.ok == True: not met]",
                "hidden: get_info [withheld after search_knowledge this turn]",
            ]
        );
    }

    #[test]
    fn read_lines_never_waits_and_trims_line_endings() {
        let mut lines = ReadLines(Cursor::new("one\r\ntwo\n\nthree"));
        assert!(!lines.waiting());
        assert_eq!(lines.next_line().as_deref(), Some("one"));
        assert_eq!(lines.next_line().as_deref(), Some("two"));
        assert_eq!(lines.next_line().as_deref(), Some(""));
        assert!(!lines.waiting());
        assert_eq!(lines.next_line().as_deref(), Some("three"));
        assert_eq!(lines.next_line(), None);
        assert!(!lines.waiting(), "not even at the end of input");
    }

    #[test]
    fn type_ahead_keeps_the_line_it_saw_waiting() {
        let (tx, rx) = std::sync::mpsc::channel();
        let mut lines = TypeAhead::new(rx);
        assert!(!lines.waiting());
        tx.send("first".to_string()).unwrap();
        tx.send("second".to_string()).unwrap();
        assert!(lines.waiting());
        assert!(lines.waiting(), "asking again takes nothing");
        assert_eq!(lines.next_line().as_deref(), Some("first"));
        assert_eq!(lines.next_line().as_deref(), Some("second"));
        assert!(!lines.waiting());
        drop(tx);
        assert!(lines.waiting(), "the end of input is waiting too");
        assert_eq!(lines.next_line(), None);
        assert_eq!(lines.next_line(), None);
    }

    #[test]
    fn the_reader_thread_sends_non_blank_lines_then_ends_the_input() {
        let mut lines = TypeAhead::spawn(Cursor::new("hi\n  \n\nthere\r\n"));
        assert_eq!(lines.next_line().as_deref(), Some("hi"));
        assert_eq!(lines.next_line().as_deref(), Some("there"));
        assert_eq!(lines.next_line(), None);
    }
}
