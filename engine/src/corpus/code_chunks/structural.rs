//! Structural units fitted to the token budget: a unit longer than the budget cut into
//! consecutive parts of whole lines, and (for the merged chunker) consecutive siblings combined
//! while the combination fits. Siblings are units of one container; a container whose header
//! and members are all in a chunk counts, once it ends, as one sibling of what follows it.

use super::chunk::{prefix, ChunkConfig, CodeChunk, Outline};
use super::sizing::{chunk, Measured};
use crate::corpus::tokens::TokenCounter;
use crate::error::Result;

/// One unit, or one part of a unit that had to be split, ready to be merged.
struct Piece {
    start: usize,
    end: usize,
    kind: &'static str,
    name: String,
    group: usize,
    opens: Option<usize>,
    tokens: usize,
    /// A part of a split unit: never merged.
    part: bool,
}

/// The outline's units as chunks within the budget; with `merge`, consecutive siblings combined.
pub(super) fn structural_chunks(
    path: &str,
    measured: &mut Measured,
    outline: &Outline,
    merge: bool,
    config: ChunkConfig,
    counter: &mut dyn TokenCounter,
) -> Result<Vec<CodeChunk>> {
    let mut pieces = Vec::new();
    for (at, unit) in outline.units.iter().enumerate() {
        let end = outline
            .units
            .get(at + 1)
            .map_or(measured.lines.len(), |next| next.start);
        if unit.start >= end {
            continue;
        }
        let head = prefix(path, &unit.name);
        let whole = measured.tokens(counter, &head, (unit.start, end))?;
        if whole <= config.budget {
            pieces.push(Piece {
                start: unit.start,
                end,
                kind: unit.kind,
                name: unit.name.clone(),
                group: unit.group,
                opens: unit.opens,
                tokens: whole,
                part: false,
            });
            continue;
        }
        let mut start = unit.start;
        while start < end {
            let (stop, tokens) =
                measured.fitting_run(counter, &head, (start, end), config.budget)?;
            pieces.push(Piece {
                start,
                end: stop,
                kind: unit.kind,
                name: unit.name.clone(),
                // Later parts of a container's header lie inside it.
                group: if start == unit.start {
                    unit.group
                } else {
                    unit.opens.unwrap_or(unit.group)
                },
                opens: if start == unit.start {
                    unit.opens
                } else {
                    None
                },
                tokens,
                part: true,
            });
            start = stop;
        }
    }
    if !merge {
        return Ok(pieces
            .iter()
            .map(|p| chunk(path, (p.start, p.end), p.kind, &p.name, p.tokens))
            .collect());
    }
    merge_siblings(path, measured, outline, pieces, config, counter)
}

/// A chunk being grown from consecutive pieces.
struct Growing {
    start: usize,
    end: usize,
    /// Kinds of its pieces, members of a container it holds whole left out.
    kinds: Vec<&'static str>,
    /// Names of its pieces, members of a container it holds whole left out.
    names: Vec<String>,
    /// Containers open in it, bottom: the group of its first piece.
    stack: Vec<usize>,
    /// Containers whose header it holds.
    opened: Vec<usize>,
    tokens: usize,
    part: bool,
}

impl Growing {
    fn of(piece: &Piece) -> Self {
        let mut stack = vec![piece.group];
        stack.extend(piece.opens);
        Growing {
            start: piece.start,
            end: piece.end,
            kinds: vec![piece.kind],
            names: if piece.name.is_empty() {
                Vec::new()
            } else {
                vec![piece.name.clone()]
            },
            stack,
            opened: piece.opens.into_iter().collect(),
            tokens: piece.tokens,
            part: piece.part,
        }
    }

    /// The containers left open once `piece` comes, if it is a sibling of what the chunk
    /// holds: containers it opened and that have ended are closed first; a container it
    /// started inside of is never closed.
    fn accepts(&self, piece: &Piece, outline: &Outline) -> Option<Vec<usize>> {
        if self.part || piece.part {
            return None;
        }
        let mut stack = self.stack.clone();
        while stack.len() > 1 && *stack.last()? != piece.group {
            let closed = stack.pop()?;
            // Only a container whose whole extent ends here closes: its parent must be next.
            if outline.parents.get(closed) != stack.last() {
                return None;
            }
        }
        (*stack.last()? == piece.group).then_some(stack)
    }
}

fn merge_siblings(
    path: &str,
    measured: &mut Measured,
    outline: &Outline,
    pieces: Vec<Piece>,
    config: ChunkConfig,
    counter: &mut dyn TokenCounter,
) -> Result<Vec<CodeChunk>> {
    let mut chunks = Vec::new();
    let mut growing: Option<Growing> = None;
    let finish = |g: Growing, chunks: &mut Vec<CodeChunk>| {
        let kind = if g.kinds.iter().all(|k| *k == g.kinds[0]) {
            g.kinds[0]
        } else {
            "merged"
        };
        chunks.push(chunk(
            path,
            (g.start, g.end),
            kind,
            &g.names.join(", "),
            g.tokens,
        ));
    };
    for piece in pieces {
        let Some(mut current) = growing.take() else {
            growing = Some(Growing::of(&piece));
            continue;
        };
        let Some(mut stack) = current.accepts(&piece, outline) else {
            finish(current, &mut chunks);
            growing = Some(Growing::of(&piece));
            continue;
        };
        // The piece's name joins unless it is a member of a container the chunk holds whole.
        let (mut names, mut kinds) = (current.names.clone(), current.kinds.clone());
        if !current.opened.contains(&piece.group) {
            kinds.push(piece.kind);
            if !piece.name.is_empty() && !names.contains(&piece.name) {
                names.push(piece.name.clone());
            }
        }
        let head = prefix(path, &names.join(", "));
        let tokens = measured.tokens(counter, &head, (current.start, piece.end))?;
        if tokens > config.budget {
            finish(current, &mut chunks);
            growing = Some(Growing::of(&piece));
            continue;
        }
        stack.extend(piece.opens);
        current.opened.extend(piece.opens);
        current.stack = stack;
        current.names = names;
        current.kinds = kinds;
        current.end = piece.end;
        current.tokens = tokens;
        growing = Some(current);
    }
    if let Some(current) = growing {
        finish(current, &mut chunks);
    }
    Ok(chunks)
}
