//! Where the cross-encoder comes from, for the Evaluate view's reranker rows and the Rerank view's
//! cross-encoder rerankers: a folder URL (the shared `xmodel`, by default the site's own copy
//! when `site.json` names one), or a folder picked in this page (its files at blob URLs the
//! worker fetches; never in the permalink), and the name the reports give it (`xname`: the hub
//! id and revision when known). The worker records each file's SHA-256 in every report.

use leptos::prelude::*;
use routelens_engine::live::live_session::{BundleUrls, CrossEncoderAt};
use routelens_engine::retrieval::cross_encoder::MODEL_FILES;
use web_sys::{File, Url};

use crate::api;
use crate::params::shared::SharedParamsStoreFields;
use crate::params::SettingsStoreFields;
use crate::site;
use crate::state::AppState;

/// The cross-encoder the controls point at: the picked folder, else the URL typed, else the
/// site's copy; none when there is none of them.
pub fn chosen_cross_encoder(picked: Option<CrossEncoderAt>) -> Option<CrossEncoderAt> {
    let shared = AppState::get().settings.shared();
    let name = shared.cross_encoder_name().get_untracked();
    if let Some(mut at) = picked {
        if let Some(name) = name {
            at.name = name;
        }
        return Some(at);
    }
    let url = match shared.cross_encoder().get_untracked() {
        Some(url) => site::absolute(&url),
        None => site::reranker_model_url()?,
    };
    Some(CrossEncoderAt {
        name: name.unwrap_or_else(|| url.clone()),
        files: BundleUrls {
            base: url,
            each: Default::default(),
        },
    })
}

/// A picked folder's three model files at blob URLs, named by the folder.
fn picked_folder(files: &[File]) -> Result<CrossEncoderAt, String> {
    let mut each = std::collections::BTreeMap::new();
    let mut folder = String::new();
    for file in files {
        let path = api::relative_path(file);
        let (top, inside) = path.split_once('/').unwrap_or(("", &path));
        if folder.is_empty() {
            folder = top.to_string();
        }
        if MODEL_FILES.contains(&inside) {
            let url = Url::create_object_url_with_blob(file)
                .map_err(|err| format!("{path}: could not be opened: {err:?}"))?;
            each.insert(inside.to_string(), url);
        }
    }
    if let Some(missing) = MODEL_FILES.iter().find(|f| !each.contains_key(**f)) {
        return Err(format!(
            "{folder}: no {missing} at its top; a cross-encoder folder holds config.json, \
             model.safetensors and tokenizer.json"
        ));
    }
    Ok(CrossEncoderAt {
        files: BundleUrls {
            base: String::new(),
            each,
        },
        name: folder,
    })
}

/// The URL, name and folder controls (`testid`-url, -name, -folder, -said).
#[component]
pub fn CrossEncoderControls(
    picked: RwSignal<Option<CrossEncoderAt>>,
    testid: &'static str,
) -> impl IntoView {
    let shared = AppState::get().settings.shared();
    let said = RwSignal::new(None::<Result<String, String>>);
    let pick = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        let files = input
            .files()
            .map(|list| api::files_of(&list))
            .unwrap_or_default();
        match picked_folder(&files) {
            Ok(at) => {
                said.set(Some(Ok(format!("picked folder {}", at.name))));
                picked.set(Some(at));
            }
            Err(why) => said.set(Some(Err(why))),
        }
    };
    let placeholder = site::reranker_model_url().unwrap_or_else(|| "https://…/model-folder".into());
    let text = |value: String| (!value.trim().is_empty()).then(|| value.trim().to_string());
    view! {
        <div class="controls">
            <label class="control">
                "cross-encoder folder URL "
                <input
                    type="url"
                    size="30"
                    placeholder=placeholder
                    data-testid=format!("{testid}-url")
                    prop:value=move || shared.cross_encoder().get().unwrap_or_default()
                    on:change=move |ev| {
                        picked.set(None);
                        shared.cross_encoder().set(text(event_target_value(&ev)));
                    }
                />
            </label>
            <label class="control">
                "or folder "
                <input
                    type="file"
                    prop:webkitdirectory=true
                    multiple=""
                    data-testid=format!("{testid}-folder")
                    on:change=pick
                />
            </label>
            <label class="control">
                "named "
                <input
                    type="text"
                    size="24"
                    placeholder="hub id@revision"
                    data-testid=format!("{testid}-name")
                    prop:value=move || shared.cross_encoder_name().get().unwrap_or_default()
                    on:change=move |ev| shared.cross_encoder_name().set(text(event_target_value(&ev)))
                />
            </label>
            {move || said.get().map(|said| match said {
                Ok(text) => view! { <span data-testid=format!("{testid}-said")>{text}</span> }.into_any(),
                Err(text) => view! { <span class="error" data-testid=format!("{testid}-said")>{text}</span> }.into_any(),
            })}
        </div>
    }
}
