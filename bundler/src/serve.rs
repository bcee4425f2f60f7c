//! `routelens serve`: a small synchronous static server for the built app, on loopback only.
//!
//! - `/` and every other path: files of the `dist/` folder (a folder's `index.html` for a folder).
//! - `/data/fastindex/…`: the paper's archive, read-only, when its folder exists. The archive stays
//!   beside the checkout and is never copied into the app's build.
//! - `/data/codenib/…`: CodeNib's per-issue results (`--codenib`), read-only, when its
//!   `jev_candidates_cases.csv` exists; listed as the score-table study `codenib`.
//! - `/bundles/<name>/…`: the bundle folder `<name>` of the `--bundles` folder, read-only. Its
//!   content-hashed files (`chunks/`, `index/`) are sent as immutable, so a browser fetches each
//!   once; `manifest.json` and `questions.jsonl` are revalidated.
//! - `/models/cross-encoder/…`: the three files of the cross-encoder of `--reranker-model`, when
//!   given, named in `/site.json`'s `reranker_model`.
//! - `/models/all-MiniLM-L6-v2/…`: the embedding model's three pinned files from `--model` (default
//!   the installed copy), when the folder holds them, named in `site.json`; the live worker
//!   fetches them for a typed dense or hybrid question and checks each against its pin.
//! - `/site.json`: the site index a published site has (engine `site`, without checksums): the
//!   archive as study `fastindex` when mounted, and the bundles sorted by name: every sub-folder
//!   with a `manifest.json` whose name is plain (ASCII letters, digits, `.`, `_`, `-`, not
//!   starting with `.`), with its `questions.jsonl` (a question set, JSON Lines `{"id",
//!   "question", "gold"}`) when it has one. Paths are relative to the site root, as published.
//!
//! - `POST /typesafe/v1/systemone`: a same-origin proxy to TypeSafe's System One API at
//!   `--typesafe-base`, adding `Authorization: Bearer $TYPESAFE_API_KEY` from this process's
//!   environment, so the page never holds the key. The status, body, `Retry-After` and request id
//!   come back as the API sent them. A request from another origin (its `Origin` header names
//!   another site) is refused with 403, so no web page can spend the key; without a key the proxy
//!   answers 401 saying so.
//!
//! Every response carries the app's Content-Security-Policy (engine `csp`: scripts and wasm from
//! here only, the inline start-up script by its hash; connections to here, `--typesafe-base`, the
//! planner's default endpoint, the pinned archive and any `--connect-src`), and
//! `Cross-Origin-Opener-Policy: same-origin` and
//! `Cross-Origin-Embedder-Policy: require-corp`: the page is then cross-origin isolated, which
//! gives `performance.now()` 5 µs resolution instead of 100 µs, and the Search view times
//! sub-millisecond queries with it. Everything the app loads from here is same-origin, and its
//! `fetch`es of other origins are CORS requests, which the embedder policy leaves alone.
//!
//! Only GET and HEAD are answered, except the proxy's POST. A path with a `..` segment (also percent-encoded) is refused
//! with 400; a symlink that leads out of its folder, like any other missing file, is a 404.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use routelens_engine::publish::site::{
    SiteBundle, SiteIndex, SiteStudy, StudyKind, CROSS_ENCODER_FOLDER, MODELS_FOLDER, SITE_FILE,
    SITE_FORMAT,
};
use routelens_engine::retrieval::cross_encoder::MODEL_FILES;
use routelens_engine::retrieval::dense::pin::ModelPin;

use routelens_engine::check::printed::built_in_text;

use crate::cli::ServeArgs;
use crate::failure::Failure;
use crate::http::{listen, serve, Body, Limits, Request, Response};
use crate::printed;
use crate::proxy::{Proxy, PROXY_PATH};
use crate::publish::PRINTED_FOLDER;

/// Where the archive is mounted, and the `base` the app fetches its files from.
pub const DATA_MOUNT: &str = "/data/fastindex";

/// Where CodeNib's per-issue results are mounted.
pub const CODENIB_MOUNT: &str = "/data/codenib";

/// The file of CodeNib's results the home page lists.
const CODENIB_CASES: &str = "jev_candidates_cases.csv";

/// CodeNib's per-issue results as the home page lists them.
fn codenib_entry() -> SiteStudy {
    SiteStudy::new(
        "codenib",
        "Candidate budgets and model-planned grep (CodeNib Base, 100 issues)",
        StudyKind::ScoreTable,
        &format!("{}/{CODENIB_CASES}", CODENIB_MOUNT.trim_start_matches('/')),
    )
}

/// The paper's archive as the home page lists it; the title is the engine loader's.
fn fastindex_entry() -> SiteStudy {
    SiteStudy::new(
        "fastindex",
        "Name-only directory routing (fastindex, 82 cases)",
        StudyKind::Archive,
        DATA_MOUNT.trim_start_matches('/'),
    )
}

/// `entry` with the printed numbers routelens carries for it (served at
/// `/printed/<id>.json`), checked once, at start, against the mounted data: the home page's
/// summary line. A study that does not load is listed without them; the line printed at start
/// and the page's own load say why.
fn with_printed(mut entry: SiteStudy, data: &Path, lines: &mut Vec<String>) -> SiteStudy {
    let checked = crate::check::load(data, None).and_then(|study| {
        let printed = printed::read(None, &entry.id)?;
        let at = format!("{PRINTED_FOLDER}/{}.json", entry.id);
        Ok(printed::attach(&mut entry, &at, &printed, &study).summary(&entry.id))
    });
    let line = match checked {
        Ok(summary) => format!("routelens: checked the printed numbers: {summary}"),
        Err(err) => format!("routelens: {} lists no printed numbers: {err}", entry.id),
    };
    lines.push(line);
    entry
}

/// Where the bundles are mounted.
pub const BUNDLES_MOUNT: &str = "/bundles";

/// What a request path asks for.
#[derive(Debug, PartialEq, Eq)]
enum Route {
    /// The site index.
    SiteIndex,
    /// A file of a bundle folder: the bundle's name, then the path segments inside it.
    Bundle(String, Vec<String>),
    /// A file under `dist/`, as path segments.
    Dist(Vec<String>),
    /// A file under the mounted archive, as path segments.
    Data(Vec<String>),
    /// A file under the mounted CodeNib results, as path segments.
    Codenib(Vec<String>),
    /// The printed numbers routelens carries for a study (`/printed/<id>.json`).
    Printed(String),
    /// A file of the embedding model's folder (`/models/<install_as>/<file>`).
    Model(String, String),
    /// A path that tries to leave its folder, or is not valid percent-encoded UTF-8.
    BadPath,
}

/// The folders being served, canonicalized so that symlink escapes can be recognised.
struct Site {
    dist: PathBuf,
    data: Option<PathBuf>,
    codenib: Option<PathBuf>,
    /// The studies `site.json` lists: the archive's and CodeNib's, each with its printed
    /// numbers checked at start.
    studies: Vec<SiteStudy>,
    bundles: Option<PathBuf>,
    /// The embedding model's folder, when it holds the pinned files.
    model: Option<PathBuf>,
    /// The page's narrowed weights for that model (the pin's `page_weights` file).
    page_weights: Option<PathBuf>,
    /// The cross-encoder's folder (`--reranker-model`), checked to load at start.
    reranker_model: Option<PathBuf>,
    proxy: Proxy,
    /// What `site.json` says built it (the commit looked up once, at start).
    built: routelens_engine::publish::site::Built,
}

/// Runs the server until the process is stopped.
pub fn run(args: &ServeArgs, out: &mut dyn Write) -> Result<(), Failure> {
    if !args.dist.is_dir() {
        return Err(Failure::Missing {
            path: args.dist.clone(),
            message: "no such folder: build the app first (trunk build), or pass --dist DIR".into(),
        });
    }
    let dist = args
        .dist
        .canonicalize()
        .map_err(|err| Failure::read(&args.dist, err))?;
    let data = if args.data.is_dir() {
        Some(
            args.data
                .canonicalize()
                .map_err(|err| Failure::read(&args.data, err))?,
        )
    } else {
        None
    };
    let codenib = if args.codenib.join(CODENIB_CASES).is_file() {
        Some(
            args.codenib
                .canonicalize()
                .map_err(|err| Failure::read(&args.codenib, err))?,
        )
    } else {
        None
    };
    let bundles = if args.bundles.is_dir() {
        Some(
            args.bundles
                .canonicalize()
                .map_err(|err| Failure::read(&args.bundles, err))?,
        )
    } else {
        None
    };
    let bundles_line = match &bundles {
        Some(dir) => format!(
            "routelens: serving {} bundle(s) of {} at {BUNDLES_MOUNT}/",
            list_bundles(dir).len(),
            args.bundles.display()
        ),
        None => format!(
            "routelens: no bundles at {}; /site.json lists none",
            args.bundles.display()
        ),
    };
    let server = listen(&format!("127.0.0.1:{}", args.port))?;
    let port = server.local_addr().map_or(args.port, |addr| addr.port());
    let proxy = Proxy::new(&args.typesafe_base, port);
    let proxy_line = proxy.describe(&args.typesafe_base);
    let codenib_line = match &codenib {
        Some(_) => format!(
            "routelens: mounted {} read-only at {CODENIB_MOUNT}/",
            args.codenib.display()
        ),
        None => format!(
            "routelens: no CodeNib results at {}; /site.json lists no score table",
            args.codenib.display()
        ),
    };
    let (mut studies, mut checked) = (Vec::new(), Vec::new());
    if let Some(dir) = &data {
        studies.push(with_printed(fastindex_entry(), dir, &mut checked));
    }
    if let Some(dir) = &codenib {
        studies.push(with_printed(
            codenib_entry(),
            &dir.join(CODENIB_CASES),
            &mut checked,
        ));
    }
    let mut lines_after = Vec::new();
    let pin = ModelPin::minilm();
    let model_dir = crate::model::model_folder(args.model.as_deref(), &pin);
    let model = pin
        .files
        .keys()
        .all(|name| model_dir.join(name).is_file())
        .then(|| model_dir.canonicalize().ok())
        .flatten();
    // The page's narrowed weights, made once beside the model (a few seconds) and kept.
    let page_weights = match &model {
        Some(dir) => match crate::page_weights::made_beside(dir) {
            Ok(path) => Some(path),
            Err(error) => {
                lines_after.push(format!(
                    "routelens: {error}; the page fetches the full model.safetensors instead"
                ));
                None
            }
        },
        None => None,
    };
    let model_line = match &model {
        Some(_) => format!(
            "routelens: serving the embedding model of {} at /{MODELS_FOLDER}/{}/{}",
            model_dir.display(),
            pin.install_as,
            match &page_weights {
                Some(path) => format!(" with the page's narrowed weights ({})", path.display()),
                None => String::new(),
            }
        ),
        None => format!(
            "routelens: no embedding model at {} (scripts/setup.sh installs it); typed dense \
             and hybrid questions cannot run",
            model_dir.display()
        ),
    };
    let reranker_model = match &args.reranker_model {
        Some(dir) => {
            // Loaded once, so a folder that is not a one-label cross-encoder is refused here.
            let loaded = crate::model::load_cross_encoder(dir, None)?;
            let root = dir.canonicalize().map_err(|e| Failure::read(dir, e))?;
            lines_after.push(format!(
                "routelens: serving the cross-encoder of {} at /{MODELS_FOLDER}/{CROSS_ENCODER_FOLDER}/ \
                 (model.safetensors {})",
                dir.display(),
                loaded
                    .identity()
                    .sha256
                    .get("model.safetensors")
                    .map_or("?", String::as_str)
            ));
            Some(root)
        }
        None => None,
    };
    let site = Site {
        dist,
        data,
        codenib,
        studies,
        bundles,
        model,
        page_weights,
        reranker_model,
        proxy,
        built: crate::publish::built("routelens serve"),
    };
    let mount = match &site.data {
        Some(_) => format!(
            "routelens: mounted {} read-only at {DATA_MOUNT}/",
            args.data.display()
        ),
        None => format!(
            "routelens: no archive at {}; /site.json lists no studies",
            args.data.display()
        ),
    };
    // Whoever reads the URL (a person, a test, a script) must see it before the first request,
    // hence the flush. The lines are a courtesy: a reader that went away (`| head -1`) must not
    // stop the server, so write errors are ignored.
    let mut lines = vec![
        format!(
            "routelens: serving {} at http://127.0.0.1:{port}/",
            args.dist.display()
        ),
        mount,
        codenib_line,
    ];
    lines.extend(checked);
    lines.extend([bundles_line, model_line, proxy_line]);
    lines.extend(lines_after);
    let _ = writeln!(out, "{}", lines.join("\n")).and_then(|()| out.flush());
    // A thread per connection, bounded (the `http` module doc): a browser opens several
    // connections at once, and answering them one after another left some of Chromium's
    // parallel fetches unanswered.
    let policy = content_security_policy(&site.dist, args);
    let handler = move |request: &Request| {
        isolated(respond(&site, request)).with_header("Content-Security-Policy", &policy)
    };
    serve(server, Limits::default(), std::sync::Arc::new(handler));
    Ok(())
}

/// The app's Content-Security-Policy (engine `csp`) for `dist/index.html`'s inline script, with
/// connections to the decision API base and the origins `--connect-src` adds.
fn content_security_policy(dist: &Path, args: &ServeArgs) -> String {
    // Without a readable index.html there is no inline script to allow, and no app to serve.
    let index = std::fs::read_to_string(dist.join("index.html")).unwrap_or_default();
    let mut connect = routelens_engine::publish::csp::default_connect_origins();
    connect.push(args.typesafe_base.clone());
    connect.extend(args.connect_src.iter().cloned());
    routelens_engine::publish::csp::policy(&index, &connect, true)
}

/// The response to one request: the proxy's, or a file's.
fn respond(site: &Site, request: &Request) -> Response {
    let path = request.url.split(['?', '#']).next().unwrap_or_default();
    if path == PROXY_PATH && request.method == "POST" {
        return site.proxy.forward(request);
    }
    not_modified(answer(site, &request.method, &request.url), request)
}

/// A 304 with no body for a file the browser already holds (its `If-None-Match` is the file's
/// `ETag`): the page and its worker both fetch `manifest.json`, and without a validator
/// `no-cache` made the worker fetch a large snapshot's 3 MB manifest again.
fn not_modified(response: Response, request: &Request) -> Response {
    let tag = response.header("ETag").map(str::to_string);
    match (tag, request.header("If-None-Match")) {
        (Some(tag), Some(asked))
            if response.status == 200 && asked.split(',').any(|t| t.trim() == tag) =>
        {
            Response::bytes(304, "text/plain", Vec::new())
                .with_header("ETag", &tag)
                .with_header("Cache-Control", REVALIDATE)
        }
        _ => response,
    }
}

/// The response to one request.
fn answer(site: &Site, method: &str, url: &str) -> Response {
    if !matches!(method, "GET" | "HEAD") {
        return Response::text(405, "405 method not allowed: this server is read-only\n")
            .with_header("Allow", "GET, HEAD");
    }
    match route(url) {
        Route::BadPath => Response::text(400, "400 bad path\n"),
        Route::SiteIndex => match site_index(site).to_json() {
            Ok(body) => Response::bytes(200, "application/json", body)
                .with_header("Cache-Control", "no-cache"),
            Err(err) => Response::text(500, &format!("500 site.json: {err}\n")),
        },
        Route::Bundle(name, segments) => match &site.bundles {
            Some(root) if is_plain_name(&name) => {
                let hashed = matches!(
                    segments.first().map(String::as_str),
                    Some("chunks" | "index" | "vectors")
                );
                let cache = if hashed { IMMUTABLE } else { REVALIDATE };
                file_cached(&root.join(&name), &segments, cache)
            }
            _ => not_found(),
        },
        Route::Dist(segments) => file(&site.dist, &segments),
        Route::Codenib(segments) => match &site.codenib {
            Some(root) => file(root, &segments),
            None => not_found(),
        },
        Route::Printed(file) => {
            let text = file.strip_suffix(".json").and_then(|id| {
                let listed = site
                    .studies
                    .iter()
                    .any(|s| s.id == id && s.printed.is_some());
                built_in_text(id).filter(|_| listed)
            });
            match text {
                Some(text) => Response::bytes(200, "application/json", text.as_bytes())
                    .with_header("Cache-Control", "no-cache"),
                None => not_found(),
            }
        }
        Route::Data(segments) => match &site.data {
            Some(root) => file(root, &segments),
            None => not_found(),
        },
        Route::Model(folder, name) => {
            let pin = ModelPin::minilm();
            let narrowed = pin.page_weights.as_ref().map(|page| &page.file);
            match (&site.model, &site.reranker_model) {
                (Some(root), _) if folder == pin.install_as && pin.files.contains_key(&name) => {
                    file_cached(root, &[name], REVALIDATE)
                }
                (Some(_), _) if folder == pin.install_as && narrowed == Some(&name) => {
                    match site.page_weights.as_ref().and_then(|path| {
                        Some((path.parent()?.canonicalize().ok()?, path.file_name()?))
                    }) {
                        Some((root, file)) => {
                            file_cached(&root, &[file.to_string_lossy().into_owned()], REVALIDATE)
                        }
                        None => not_found(),
                    }
                }
                (_, Some(root))
                    if folder == CROSS_ENCODER_FOLDER && MODEL_FILES.contains(&name.as_str()) =>
                {
                    file_cached(root, &[name], REVALIDATE)
                }
                _ => not_found(),
            }
        }
    }
}

/// Maps a request URL to what it asks for, refusing any attempt to climb out of a folder.
fn route(url: &str) -> Route {
    let path = url.split(['?', '#']).next().unwrap_or_default();
    let Some(path) = percent_decode(path) else {
        return Route::BadPath;
    };
    if !path.starts_with('/') {
        return Route::BadPath;
    }
    let segments: Vec<String> = path
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .map(str::to_string)
        .collect();
    if segments
        .iter()
        .any(|s| s == ".." || s.contains(['\\', '\0']))
    {
        return Route::BadPath;
    }
    match segments.as_slice() {
        [only] if only == SITE_FILE => Route::SiteIndex,
        [bundles, name, rest @ ..] if bundles == "bundles" => {
            Route::Bundle(name.clone(), rest.to_vec())
        }
        [data, fastindex, rest @ ..] if data == "data" && fastindex == "fastindex" => {
            Route::Data(rest.to_vec())
        }
        [data, codenib, rest @ ..] if data == "data" && codenib == "codenib" => {
            Route::Codenib(rest.to_vec())
        }
        [printed, file] if printed == PRINTED_FOLDER => Route::Printed(file.clone()),
        [models, folder, file] if models == MODELS_FOLDER => {
            Route::Model(folder.clone(), file.clone())
        }
        _ => Route::Dist(segments),
    }
}

/// Whether a bundle folder's name can be served as one URL segment as it is.
fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'_' | b'-'))
}

/// What this server mounts, as a site index.
fn site_index(site: &Site) -> SiteIndex {
    SiteIndex {
        format: SITE_FORMAT.into(),
        title: "routelens".into(),
        built: site.built.clone(),
        base_path: None,
        checksums: false,
        studies: site.studies.clone(),
        bundles: site
            .bundles
            .as_deref()
            .map(list_bundles)
            .unwrap_or_default(),
        model: site
            .model
            .as_ref()
            .map(|_| format!("{MODELS_FOLDER}/{}", ModelPin::minilm().install_as)),
        model_page_weights: site.page_weights.is_some(),
        reranker_model: site
            .reranker_model
            .as_ref()
            .map(|_| format!("{MODELS_FOLDER}/{CROSS_ENCODER_FOLDER}")),
    }
}

/// The bundle folders under `root`, sorted by name.
fn list_bundles(root: &Path) -> Vec<SiteBundle> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut bundles: Vec<SiteBundle> = entries
        .filter_map(|entry| entry.ok())
        .filter_map(|entry| {
            let name = entry.file_name().to_str()?.to_string();
            let dir = entry.path();
            if !is_plain_name(&name) || !dir.join("manifest.json").is_file() {
                return None;
            }
            let base = format!("{}/{name}", BUNDLES_MOUNT.trim_start_matches('/'));
            let questions = dir
                .join("questions.jsonl")
                .is_file()
                .then(|| format!("{base}/questions.jsonl"));
            Some(SiteBundle {
                name,
                base,
                questions,
            })
        })
        .collect();
    bundles.sort_by(|a, b| a.name.cmp(&b.name));
    bundles
}

/// Decodes `%XX` escapes; `None` for a broken escape or bytes that are not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            decoded.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            decoded.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(decoded).ok()
}

/// Revalidate on every use: the default for files that can change.
const REVALIDATE: &str = "no-cache";

/// Keep for a year: for files named by the hash of their bytes.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// A file under `root` (a folder's `index.html` for a folder), or 404.
fn file(root: &Path, segments: &[String]) -> Response {
    file_cached(root, segments, REVALIDATE)
}

/// As [`file`], with the given `Cache-Control`.
fn file_cached(root: &Path, segments: &[String], cache_control: &str) -> Response {
    let mut path = segments.iter().fold(root.to_path_buf(), |p, s| p.join(s));
    if path.is_dir() {
        path.push("index.html");
    }
    let Ok(real) = path.canonicalize() else {
        return not_found();
    };
    if !real.starts_with(root) || !real.is_file() {
        return not_found();
    }
    let Ok(file) = File::open(&real) else {
        return not_found();
    };
    let Ok(meta) = file.metadata() else {
        return not_found();
    };
    let length = meta.len();
    let mut headers = vec![
        ("Content-Type".into(), mime_type(&real).into()),
        ("Cache-Control".into(), cache_control.into()),
    ];
    if cache_control == REVALIDATE {
        // Size and modification time, as static servers tag files: a rewritten file gets a new
        // tag (bundles are written by renaming a whole new folder into place).
        let modified = meta
            .modified()
            .ok()
            .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |since| since.as_nanos());
        headers.push(("ETag".into(), format!("\"{length}-{modified:x}\"")));
    }
    Response {
        status: 200,
        headers,
        body: Body::File(file, length),
    }
}

/// The Content-Type of a file, by extension. Browsers compile wasm streaming only when it is
/// served as `application/wasm`.
fn mime_type(path: &Path) -> &'static str {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("html" | "htm") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("json" | "map") => "application/json",
        Some("wasm") => "application/wasm",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("ico") => "image/x-icon",
        Some("woff2") => "font/woff2",
        Some("md") => "text/markdown; charset=utf-8",
        Some("txt") => "text/plain; charset=utf-8",
        Some("csv") => "text/csv; charset=utf-8",
        Some("jsonl") => "application/x-ndjson",
        _ => "application/octet-stream",
    }
}

/// The response with the cross-origin isolation headers (see the module doc).
fn isolated(response: Response) -> Response {
    response
        .with_header("Cross-Origin-Opener-Policy", "same-origin")
        .with_header("Cross-Origin-Embedder-Policy", "require-corp")
}

fn not_found() -> Response {
    Response::text(404, "404 not found\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segments(parts: &[&str]) -> Vec<String> {
        parts.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn routes_paths() {
        assert_eq!(route("/"), Route::Dist(vec![]));
        assert_eq!(route("/?study=fastindex&k=8"), Route::Dist(vec![]));
        assert_eq!(
            route("/app_bg.wasm"),
            Route::Dist(segments(&["app_bg.wasm"]))
        );
        assert_eq!(route("/site.json"), Route::SiteIndex);
        assert_eq!(
            route("/models/all-MiniLM-L6-v2/tokenizer.json"),
            Route::Model("all-MiniLM-L6-v2".into(), "tokenizer.json".into())
        );
        assert_eq!(
            route("/studies.json"),
            Route::Dist(segments(&["studies.json"]))
        );
        assert_eq!(
            route("/data/fastindex/paper/data/README.md"),
            Route::Data(segments(&["paper", "data", "README.md"]))
        );
        assert_eq!(
            route("/a%20b/./c.js"),
            Route::Dist(segments(&["a b", "c.js"]))
        );
    }

    #[test]
    fn refuses_traversal_and_bad_escapes() {
        for url in [
            "/../secret",
            "/data/fastindex/../../etc/passwd",
            "/%2e%2e/secret",
            "/a%2f..%2fb",
            "/a\\..\\b",
            "/%zz",
            "/%ff",
            "relative",
        ] {
            assert_eq!(route(url), Route::BadPath, "{url}");
        }
    }

    #[test]
    fn wasm_and_friends_get_their_types() {
        assert_eq!(mime_type(Path::new("x/app_bg.wasm")), "application/wasm");
        assert_eq!(
            mime_type(Path::new("index.HTML")),
            "text/html; charset=utf-8"
        );
        assert_eq!(
            mime_type(Path::new("app.js")),
            "text/javascript; charset=utf-8"
        );
        assert_eq!(mime_type(Path::new("a.json")), "application/json");
        assert_eq!(mime_type(Path::new("a.svg")), "image/svg+xml");
        assert_eq!(mime_type(Path::new("LICENSE")), "application/octet-stream");
    }
}
