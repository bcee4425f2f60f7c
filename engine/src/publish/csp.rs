//! The app's Content-Security-Policy: scripts and wasm from the site itself only, connections to
//! the site and the few origins the app is configured to call, nothing else.
//!
//! Trunk's `index.html` starts the app with one inline module script, so the policy allows that
//! script by its SHA-256 (`'sha256-…'`) rather than allowing inline scripts at all; wasm needs
//! `'wasm-unsafe-eval'` (compiling a module), which allows no JavaScript `eval`. `routelens serve`
//! sends the policy as a header; `routelens publish` writes it into the site's `index.html` as a
//! `<meta http-equiv>` (a static host sets no headers). Leptos sets `style` attributes, so
//! styles may be inline; nothing else is.

use crate::stable_sort;
use base64::Engine;
use sha2::{Digest, Sha256};

use crate::load::archive::PINNED_ARCHIVE_URL;
use crate::remote::rerank::chat_planner::DEFAULT_PLANNER_BASE;
use crate::remote::route::protocol::DEFAULT_BASE;

/// The origins the app calls by default besides its own: the decision API, the planner's chat
/// endpoint and the pinned public copy of the paper's archive.
pub fn default_connect_origins() -> Vec<String> {
    [DEFAULT_BASE, DEFAULT_PLANNER_BASE, PINNED_ARCHIVE_URL]
        .iter()
        .filter_map(|url| origin(url))
        .collect()
}

/// The `scheme://host[:port]` of an absolute http(s) URL; `None` for anything else.
pub fn origin(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    if !matches!(scheme, "http" | "https") {
        return None;
    }
    let host = rest.split(['/', '?', '#']).next()?;
    let plain = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'[' | b']'));
    plain.then(|| format!("{scheme}://{host}"))
}

/// The policy for a page whose HTML is `index_html`, allowed to connect to `connect` origins
/// besides its own (each checked by [`origin`]; others are left out). `header` adds what only a
/// header can carry (`frame-ancestors`).
pub fn policy(index_html: &str, connect: &[String], header: bool) -> String {
    let mut script = vec!["'self'".to_string(), "'wasm-unsafe-eval'".to_string()];
    script.extend(inline_scripts(index_html).map(|text| {
        let digest = Sha256::digest(text.as_bytes());
        format!(
            "'sha256-{}'",
            base64::engine::general_purpose::STANDARD.encode(digest)
        )
    }));
    let mut origins: Vec<String> = connect.iter().filter_map(|url| origin(url)).collect();
    stable_sort::sort(&mut origins);
    origins.dedup();
    let mut directives = vec![
        "default-src 'self'".to_string(),
        format!("script-src {}", script.join(" ")),
        "worker-src 'self'".to_string(),
        // `blob:`: a picked folder's files are fetched through object URLs the page makes.
        format!("connect-src 'self' blob: {}", origins.join(" "))
            .trim_end()
            .to_string(),
        "img-src 'self' data: blob:".to_string(),
        "style-src 'self' 'unsafe-inline'".to_string(),
        "object-src 'none'".to_string(),
        "base-uri 'self'".to_string(),
        "form-action 'none'".to_string(),
    ];
    if header {
        directives.push("frame-ancestors 'none'".to_string());
    }
    directives.join("; ")
}

/// The text of every inline `<script>` (one without `src`), exactly as the browser hashes it.
fn inline_scripts(html: &str) -> impl Iterator<Item = &str> {
    html.match_indices("<script").filter_map(move |(at, _)| {
        let open_end = at + html[at..].find('>')?;
        let open = &html[at..open_end];
        if open.contains(" src=") || open.contains("\tsrc=") {
            return None;
        }
        let body_start = open_end + 1;
        let body_end = body_start + html[body_start..].find("</script>")?;
        Some(&html[body_start..body_end])
    })
}

/// `index_html` with the policy as a `<meta http-equiv>` first in its `<head>` (replacing one
/// written before), or `None` when it has no `<head>`.
pub fn with_meta(index_html: &str, policy: &str) -> Option<String> {
    let without = remove_meta(index_html);
    let head = without.find("<head>")? + "<head>".len();
    let escaped = policy.replace('&', "&amp;").replace('"', "&quot;");
    Some(format!(
        "{}\n    <meta http-equiv=\"Content-Security-Policy\" content=\"{escaped}\" />{}",
        &without[..head],
        &without[head..]
    ))
}

/// The page without a policy `<meta>` this module wrote.
fn remove_meta(html: &str) -> String {
    const START: &str = "\n    <meta http-equiv=\"Content-Security-Policy\"";
    match html.find(START) {
        Some(at) => match html[at..].find("/>") {
            Some(end) => format!("{}{}", &html[..at], &html[at + end + 2..]),
            None => html.to_string(),
        },
        None => html.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "<!doctype html>\n<html><head>\n<script type=\"module\">\nimport init from './a.js';\nawait init();\n</script>\n<script src=\"./b.js\"></script>\n</head><body></body></html>";

    #[test]
    fn allows_the_inline_script_by_its_hash_and_nothing_inline_else() {
        let policy = policy(PAGE, &["https://api.typesafe.ai/v1".into()], false);
        // sha256 of the inline module's text, as `openssl dgst -sha256 -binary | base64` gives it.
        let digest = Sha256::digest(b"\nimport init from './a.js';\nawait init();\n");
        let hash = base64::engine::general_purpose::STANDARD.encode(digest);
        assert!(policy.contains(&format!(
            "script-src 'self' 'wasm-unsafe-eval' 'sha256-{hash}';"
        )));
        assert_eq!(policy.matches("'sha256-").count(), 1, "{policy}");
        let script = policy
            .split("; ")
            .find(|d| d.starts_with("script-src"))
            .unwrap();
        assert!(!script.contains("unsafe-inline") && !script.contains("'unsafe-eval'"));
        assert!(policy.contains("connect-src 'self' blob: https://api.typesafe.ai;"));
        assert!(!policy.contains("frame-ancestors"));
        assert!(super::policy(PAGE, &[], true).ends_with("frame-ancestors 'none'"));
    }

    #[test]
    fn origins_are_checked_and_deduplicated() {
        assert_eq!(
            origin("http://127.0.0.1:9/v1/x?y").as_deref(),
            Some("http://127.0.0.1:9")
        );
        for bad in [
            "javascript:alert(1)",
            "data:text/html,x",
            "https://a b/",
            "ftp://x",
            "https://",
        ] {
            assert_eq!(origin(bad), None, "{bad}");
        }
        let policy = policy(
            PAGE,
            &[
                "https://x.org/a".into(),
                "https://x.org/b".into(),
                "https://'self' *".into(),
            ],
            false,
        );
        assert!(
            policy.contains("connect-src 'self' blob: https://x.org;"),
            "{policy}"
        );
        let defaults = default_connect_origins();
        assert!(defaults.contains(&"https://api.typesafe.ai".to_string()));
        assert!(defaults.contains(&"https://raw.githubusercontent.com".to_string()));
    }

    #[test]
    fn the_meta_goes_first_in_the_head_once() {
        let once = with_meta(PAGE, "default-src 'self'").unwrap();
        let twice = with_meta(&once, "default-src 'none'").unwrap();
        assert_eq!(twice.matches("Content-Security-Policy").count(), 1);
        assert!(twice.contains("<head>\n    <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'\" />\n<script"));
        assert_eq!(with_meta("<p>no head</p>", "x"), None);
    }
}
