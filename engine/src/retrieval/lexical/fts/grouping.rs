//! Grouping the files' tokens on two threads at once: a helper thread and the writer's own.
//!
//! The helper groups the files in order ahead of the writer. When the writer needs a file the
//! helper has not finished, it does not wait: it claims the next unclaimed file and groups that
//! one itself (it needs it soon anyway), and only waits once every file is claimed. So neither
//! core idles while there is grouping left, whatever else the machine runs. The result does not
//! depend on who groups a file.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use super::grouped::{GroupedText, Grouper};

/// A file's path and content, grouped.
pub type GroupedFile = (GroupedText, GroupedText);

/// The files to group, and those grouped and not yet taken.
pub struct GroupingQueue<'f> {
    files: &'f [(String, String)],
    /// The first file nobody has claimed.
    next: AtomicUsize,
    state: Mutex<State>,
    /// Signalled when a file is grouped or the helper stops.
    changed: Condvar,
}

struct State {
    grouped: Vec<Option<GroupedFile>>,
    helper_stopped: bool,
}

impl<'f> GroupingQueue<'f> {
    /// A queue over `files`, none claimed yet.
    pub fn new(files: &'f [(String, String)]) -> GroupingQueue<'f> {
        GroupingQueue {
            files,
            next: AtomicUsize::new(0),
            state: Mutex::new(State {
                grouped: files.iter().map(|_| None).collect(),
                helper_stopped: false,
            }),
            changed: Condvar::new(),
        }
    }

    /// The helper thread's work: groups files until none is left unclaimed.
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    pub fn help(&self, grouper: &mut Grouper) {
        // Set even if grouping panics, so that the writer stops waiting for this thread.
        let _stopped = HelperStopped(self);
        while self.group_next(grouper) {}
    }

    /// File `id`'s grouped texts, grouping other files meanwhile if the helper has not finished
    /// it; `None` if the helper stopped without it.
    pub fn take(&self, id: usize, grouper: &mut Grouper) -> Option<GroupedFile> {
        loop {
            if let Some(file) = self.state().grouped.get_mut(id)?.take() {
                return Some(file);
            }
            if !self.group_next(grouper) {
                break;
            }
        }
        let mut state = self.state();
        loop {
            if let Some(file) = state.grouped.get_mut(id)?.take() {
                return Some(file);
            }
            if state.helper_stopped {
                return None;
            }
            state = self
                .changed
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Leaves the files nobody has claimed yet ungrouped (the writer failed).
    pub fn abandon(&self) {
        self.next.store(self.files.len(), Ordering::Relaxed);
    }

    /// Claims the next file and groups it; false if every file is claimed.
    fn group_next(&self, grouper: &mut Grouper) -> bool {
        let at = self.next.fetch_add(1, Ordering::Relaxed);
        let Some((path, text)) = self.files.get(at) else {
            return false;
        };
        let file = (grouper.group(path), grouper.group(text));
        self.state().grouped[at] = Some(file);
        self.changed.notify_all();
        true
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Marks the helper stopped when dropped.
struct HelperStopped<'q, 'f>(&'q GroupingQueue<'f>);

impl Drop for HelperStopped<'_, '_> {
    fn drop(&mut self) {
        self.0.state().helper_stopped = true;
        self.0.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieval::lexical::fts::Tokenizer;

    fn files(count: usize) -> Vec<(String, String)> {
        (0..count)
            .map(|i| (format!("f{i}"), format!("word{} common", i % 3)))
            .collect()
    }

    #[test]
    fn every_file_is_taken_once_whoever_groups_it() {
        let files = files(500);
        let queue = GroupingQueue::new(&files);
        std::thread::scope(|scope| {
            scope.spawn(|| queue.help(&mut Grouper::new(Tokenizer::Unicode61, false)));
            let mut grouper = Grouper::new(Tokenizer::Unicode61, false);
            for (id, (path_text, content_text)) in files.iter().enumerate() {
                let (path, content) = queue.take(id, &mut grouper).unwrap();
                assert_eq!(path.tokens(), 1);
                assert_eq!(content.tokens(), 2);
                // Grouped from this file's own texts, not another's.
                assert!(path.is_of(path_text));
                assert!(content.is_of(content_text));
            }
        });
    }

    #[test]
    fn the_writer_alone_groups_everything_and_stops_when_the_helper_has() {
        let files = files(20);
        let queue = GroupingQueue::new(&files);
        // A helper that stopped at once (as if it had panicked before its first file).
        drop(HelperStopped(&queue));
        let mut grouper = Grouper::new(Tokenizer::Unicode61, false);
        for id in 0..files.len() {
            assert!(queue.take(id, &mut grouper).is_some());
        }
        // Taken already, and nobody left to group it again.
        assert!(queue.take(3, &mut grouper).is_none());
        assert!(queue.take(files.len(), &mut grouper).is_none());
    }
}
