//! The store itself: the list and the opened bundles (see the module above).

use std::collections::BTreeMap;
use std::rc::Rc;

use leptos::prelude::*;
use routelens_engine::corpus::bundle::{
    decode_listed_manifest, file_list_of, manifest_head, Manifest, ManifestHead, MANIFEST_FILE,
};
use routelens_engine::corpus::code_chunks::Chunker;
use routelens_engine::live::live_session::{AnswerBody, BundleUrls, CallBody};
use routelens_engine::load::question_set::{parse_questions, Question};
use routelens_engine::publish::site::SITE_FILE;
use routelens_engine::sha256_hex;

use crate::api::{self, BundleEntry};
use crate::error::{Error, Result};
use crate::{live, site};

/// A bundle's manifest and question set, as fetched and checked.
#[derive(Debug)]
pub struct BundleFiles {
    /// Its entry: listed by the site, or opened by the reader.
    pub entry: BundleEntry,
    /// The decoded manifest.
    pub manifest: Manifest,
    /// The manifest's size in bytes.
    pub manifest_bytes: usize,
    /// The manifest's SHA-256: the live worker refuses a manifest that is not the one checked
    /// here.
    pub manifest_sha256: String,
    /// The bundle's own question set (empty without one).
    pub questions: Vec<Question>,
}

/// The store: what was fetched, kept for the page's lifetime.
#[derive(Clone, Copy)]
pub struct BundleStore {
    list: StoredValue<Option<Vec<BundleEntry>>, LocalStorage>,
    added: StoredValue<Vec<BundleEntry>, LocalStorage>,
    opened: StoredValue<BTreeMap<String, Rc<BundleFiles>>, LocalStorage>,
    heads: StoredValue<BTreeMap<String, Rc<ManifestHead>>, LocalStorage>,
}

impl BundleStore {
    /// An empty store.
    pub fn new() -> Self {
        BundleStore {
            list: StoredValue::new_local(None),
            added: StoredValue::new_local(Vec::new()),
            opened: StoredValue::new_local(BTreeMap::new()),
            heads: StoredValue::new_local(BTreeMap::new()),
        }
    }

    /// The site's bundles (fetched on the first call that succeeds), then those the reader
    /// opened from a URL or a picked folder. Without a site list, the opened ones alone; with
    /// neither, why there are none.
    pub async fn list(self) -> Result<Vec<BundleEntry>> {
        let listed = match self.list.get_value() {
            Some(list) => Ok(list),
            None => api::fetch_bundles().await.inspect(|list| {
                self.list.set_value(Some(list.clone()));
            }),
        };
        let added = self.added.get_value();
        match listed {
            Ok(mut list) => {
                list.extend(added);
                Ok(list)
            }
            Err(_) if !added.is_empty() => Ok(added),
            Err(err) => Err(err),
        }
    }

    /// Adds a bundle the reader opened (replacing one of the same name).
    pub fn add(self, entry: BundleEntry) {
        self.added.update_value(|added| {
            added.retain(|e| e.name != entry.name);
            added.push(entry);
        });
    }

    /// The bundle a permalink names: one of [`BundleStore::list`], or one opened from a URL
    /// (`url:…`, opened again); a picked folder (`picked:…`) cannot come back through a link,
    /// and the error says to pick it again.
    pub async fn find(self, name: &str) -> Result<BundleEntry> {
        let list = self.list().await;
        if let Some(entry) = list.iter().flatten().find(|e| e.name == name) {
            return Ok(entry.clone());
        }
        if let Some(url) = name.strip_prefix(api::URL_PREFIX) {
            let entry = BundleEntry::at_url(url);
            self.add(entry.clone());
            return Ok(entry);
        }
        if let Some(folder) = name.strip_prefix(api::PICKED_PREFIX) {
            return Err(Error::refused(format!(
                "bundle {name:?} was read from the folder {folder:?} picked in the browser, which \
                 a link cannot bring back: pick the folder again on the home page (\"Open a \
                 bundle\"); the link's other settings are kept"
            )));
        }
        match list {
            Ok(_) => Err(Error::refused(format!(
                "bundle {name:?} is not in this site's {SITE_FILE}"
            ))),
            Err(err) => Err(Error::refused(format!(
                "cannot open bundle {name:?}: {err}"
            ))),
        }
    }

    /// The bundle `entry`'s manifest and question set, fetched on the first call (progress said
    /// through `progress`) and kept.
    pub async fn open(
        self,
        entry: &BundleEntry,
        progress: &dyn Fn(String),
    ) -> Result<Rc<BundleFiles>> {
        let kept = self
            .opened
            .with_value(|opened| opened.get(&entry.name).cloned())
            .filter(|files| files.entry == *entry);
        if let Some(files) = kept {
            return Ok(files);
        }
        progress(format!("{}: fetching manifest.json", entry.name));
        let manifest_bytes = api::fetch_required(&entry.url_of(MANIFEST_FILE)).await?;
        // Format 6 lists its files apart, in a file the manifest names and hashes.
        let list = match file_list_of(&manifest_bytes)? {
            Some(list) => {
                progress(format!("{}: fetching the file list", entry.name));
                Some(api::fetch_required(&entry.url_of(&list)).await?)
            }
            None => None,
        };
        let manifest = decode_listed_manifest(&manifest_bytes, list.as_deref())?;
        let questions = match &entry.questions {
            None => Vec::new(),
            Some(url) => {
                progress(format!("{}: fetching the question set", entry.name));
                match api::fetch_optional(url).await? {
                    Some(bytes) => parse_questions(url, &String::from_utf8_lossy(&bytes))?,
                    None if entry.questions_optional => Vec::new(),
                    None => return Err(Error::NotFound { url: url.clone() }),
                }
            }
        };
        let files = Rc::new(BundleFiles {
            entry: entry.clone(),
            manifest,
            manifest_bytes: manifest_bytes.len(),
            manifest_sha256: sha256_hex(&manifest_bytes),
            questions,
        });
        self.opened.update_value(|opened| {
            opened.insert(entry.name.clone(), files.clone());
        });
        Ok(files)
    }
}

impl BundleStore {
    /// What bundle `entry` was built from, from its `manifest.json` alone (fetched once; the
    /// file list is not): a case's snapshot is found among many bundles without their lists.
    pub async fn head(self, entry: &BundleEntry) -> Result<Rc<ManifestHead>> {
        let opened = self
            .opened
            .with_value(|opened| opened.get(&entry.name).cloned())
            .filter(|files| files.entry == *entry);
        if let Some(files) = opened {
            return Ok(Rc::new(ManifestHead::of(&files.manifest)));
        }
        if let Some(head) = self
            .heads
            .with_value(|heads| heads.get(&entry.name).cloned())
        {
            return Ok(head);
        }
        let bytes = api::fetch_required(&entry.url_of(MANIFEST_FILE)).await?;
        let head = Rc::new(manifest_head(&bytes)?);
        self.heads.update_value(|heads| {
            heads.insert(entry.name.clone(), head.clone());
        });
        Ok(head)
    }

    /// The chunkings of bundle `name` (none without a bundle), from its manifest.
    pub async fn chunkers(self, name: Option<String>) -> Result<Vec<Chunker>> {
        let Some(name) = name else {
            return Ok(Vec::new());
        };
        let entry = self.find(&name).await?;
        let files = self.open(&entry, &|_| {}).await?;
        Ok(files.manifest.chunkings.iter().map(|c| c.chunker).collect())
    }

    /// Has the live worker load bundle `name`'s `chunkers` (each table and chunk index, and
    /// with `vectors` each one's vectors and the question set's) and, with `texts`, every
    /// file's text, progress said through `progress`.
    pub async fn load_chunkings(
        self,
        name: &str,
        texts: bool,
        (chunkers, vectors): (&[Chunker], bool),
        progress: live::OnProgress,
    ) -> Result<()> {
        let entry = self.find(name).await?;
        let files = self.open(&entry, &|_| {}).await?;
        let mut call = load_call(&entry, &files.manifest_sha256, false, texts, chunkers);
        if let CallBody::Load {
            vectors: wanted, ..
        } = &mut call
        {
            *wanted = vectors;
        }
        match live::start_metered(call, progress)?.answer().await? {
            AnswerBody::Loaded { .. } => Ok(()),
            other => Err(live::unexpected(&other)),
        }
    }
}

/// The live worker's call that loads `entry` (its manifest, and the index, texts and chunkings
/// when asked),
/// bound to the manifest the store checked.
pub fn load_call(
    entry: &BundleEntry,
    manifest_sha256: &str,
    index: bool,
    texts: bool,
    chunkings: &[Chunker],
) -> CallBody {
    let files = match &entry.picked {
        Some(each) => BundleUrls {
            base: String::new(),
            each: (**each).clone(),
        },
        None => BundleUrls {
            base: site::absolute(&entry.base),
            each: BTreeMap::new(),
        },
    };
    CallBody::Load {
        bundle: entry.name.clone(),
        files,
        manifest_sha256: Some(manifest_sha256.to_string()),
        index,
        texts,
        chunkings: chunkings.to_vec(),
        vectors: false,
    }
}

impl Default for BundleStore {
    fn default() -> Self {
        BundleStore::new()
    }
}
