//! The page's narrowed embedding weights on disk (engine `retrieval::dense::page_weights`): made
//! once from the installed model's pinned f32 file, checked against their own pin, and kept
//! beside the model for `routelens serve` and `publish --model` to hand out.

use std::path::{Path, PathBuf};

use routelens_engine::checksum::sha256_hex;
use routelens_engine::retrieval::dense::page_weights;
use routelens_engine::retrieval::dense::pin::ModelPin;

use crate::failure::Failure;

/// The page's narrowed weights for the pinned model in `folder` (`page_weights` in the pin):
/// the file of that name beside the model when it is there and matches the pin; else made from
/// the pinned f32 file (checked first) and kept beside it for the next run. A folder that cannot
/// be written keeps it in the system's temporary folder instead. Returns the file's path.
pub fn made_beside(folder: &Path) -> Result<PathBuf, Failure> {
    let pin = ModelPin::minilm();
    let page = pin.page_weights().map_err(Failure::Engine)?;
    let beside = folder.join(&page.file);
    let spare =
        std::env::temp_dir().join(format!("routelens-{}-{}", page.pinned.sha256, page.file));
    for path in [&beside, &spare] {
        if let Ok(bytes) = std::fs::read(path) {
            if pin
                .check_page_weights(bytes.len(), &sha256_hex(&bytes))
                .is_ok()
            {
                return Ok(path.clone());
            }
        }
    }
    let weights = crate::model::read_model_file(folder, &page.from)?;
    let in_folder = |source| Failure::Bundle {
        dir: folder.to_path_buf(),
        source,
    };
    pin.check(&page.from, &weights).map_err(in_folder)?;
    let narrowed =
        page_weights::narrow(&weights, page.mantissa_bits, page.level).map_err(in_folder)?;
    // The same f32 file and settings give the same bytes; other bytes mean this build narrows
    // differently from the one that made the pin.
    pin.check_page_weights(narrowed.len(), &sha256_hex(&narrowed))
        .map_err(in_folder)?;
    match crate::folder::write_file_atomic(&beside, &narrowed) {
        Ok(()) => Ok(beside),
        Err(_) => {
            crate::folder::write_file_atomic(&spare, &narrowed)?;
            Ok(spare)
        }
    }
}
