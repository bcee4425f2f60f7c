//! Reading a study from disk: the engine has no I/O, so the command line reads the bytes and hands
//! them over. Messages name files as the user typed them, so `routelens score runs/a.jsonl` reports
//! `runs/a.jsonl:12: …`.

use std::path::Path;

use routelens_engine::{load_archive, load_jsonl, load_trec, ArchiveBytes, Study, ARCHIVE_FILES};

use crate::failure::Failure;

/// Loads the study at `path`: an archive folder, a `.jsonl` file, or (with `qrels`) a TREC run.
pub fn load_study(path: &Path, qrels: Option<&Path>) -> Result<Study, Failure> {
    // The system's own words ("No such file or directory") for a path that is not there.
    std::fs::metadata(path).map_err(|err| Failure::read(path, err))?;
    if let Some(qrels) = qrels {
        if path.is_dir() {
            return Err(Failure::Usage(format!(
                "{}: --qrels goes with a TREC run file, not a folder",
                path.display()
            )));
        }
        let (run, qrels_text) = (read_text(path)?, read_text(qrels)?);
        return Ok(load_trec(&name(path), &run, &name(qrels), &qrels_text)?);
    }
    if path.is_dir() {
        return load_archive(&read_archive(path)?).map_err(|source| Failure::Archive {
            dir: path.to_path_buf(),
            source,
        });
    }
    if path.extension().is_some_and(|ext| ext == "jsonl") {
        return Ok(load_jsonl(&name(path), &read_text(path)?)?);
    }
    Err(Failure::Usage(format!(
        "{}: a study is an archive folder, a .jsonl file, or a TREC run file given with --qrels FILE",
        path.display()
    )))
}

/// Reads every archive file that exists under `dir`; the engine says which required one is absent.
pub(crate) fn read_archive(dir: &Path) -> Result<ArchiveBytes, Failure> {
    let mut files = ArchiveBytes::new();
    for file in ARCHIVE_FILES {
        let full = dir.join(file.path);
        match std::fs::read(&full) {
            Ok(bytes) => {
                files.insert(file.path.to_string(), bytes);
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => return Err(Failure::read(&full, err)),
        }
    }
    Ok(files)
}

/// Reads a text file; bytes that are not UTF-8 are bad data, named by file. Every subcommand
/// reads its text inputs through this.
pub(crate) fn read_text(path: &Path) -> Result<String, Failure> {
    let bytes = std::fs::read(path).map_err(|err| Failure::read(path, err))?;
    String::from_utf8(bytes).map_err(|err| {
        Failure::Engine(routelens_engine::Error::Parse {
            file: name(path),
            message: format!(
                "not UTF-8 text (invalid byte at offset {})",
                err.utf8_error().valid_up_to()
            ),
        })
    })
}

/// The name the engine's messages use for a file: its path as given.
fn name(path: &Path) -> String {
    path.display().to_string()
}
