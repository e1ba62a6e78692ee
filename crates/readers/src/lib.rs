//! The on-demand module: readers of what a user pastes or uploads, which a first visit does not
//! need. Trunk builds this crate into `dist/` beside the page and the page imports it with a
//! dynamic `import()` the first time one is needed (`src/readers.rs`), so its code and sentences
//! stay out of the first load.
//!
//! # Interface
//!
//! Each export takes plain JavaScript values (text, bytes) and returns an array of strings whose
//! first element says what the rest is:
//!
//! - `["measurement", full]`: a measurement in [`Measurement::to_full_link`] form; the page reads
//!   it back with `Measurement::from_full_link` (the link codec is in the page anyway);
//! - `["architecture", arch, quantization]`: a model's architecture in [`encode_arch`] form (the
//!   link's custom model), which the page reads back with `decode_arch`, and the quantization its
//!   config.json names in `Quantization::to_text` form (empty when none);
//! - `["hub", …]`, `["gguf-list", …]`, `["hub-gguf", …]`: the Hub client's replies (`hub/`),
//!   which stay inside this module: the Hub id box is run here (`hub/panel.rs`, opened by the
//!   page with `hub_open` and fed its events with `hub_event`), and tells the page what to show
//!   and what was read as messages of its own (listed in `hub/panel.rs`);
//! - `["measured", table, report, marker bytes, marker label]`: a measurement beside the
//!   estimate as markup (`measured_view.rs`), which the page patches in as it is;
//! - `["error", english, chinese]`: why the input gives nothing, as one sentence per [`LANGS`]
//!   entry, so the page can follow its language toggle without asking again.
//!
//! To add a reader (a GGUF header, a Hub client's reply): write a pure `*_reply` function that
//! returns a [`Reply`] (tested natively), export a `#[wasm_bindgen]` wrapper that returns
//! `reply.into_parts()` (bytes come in as `&[u8]`, a `Uint8Array`), add a kind here when the page
//! needs a new one, and on the page add one async function beside `read_measurement` in
//! `src/readers.rs` that calls the export by name (`call`) and reads the parts back. Keep what the
//! page already has (the engine's link codecs) on the page side of the interface, and the readers
//! and their sentences on this side. `scripts/size_budget.py` gates this module apart from the
//! first load (112,000 B gzip in `scripts/dev.sh`, since the Hub's GGUF files came in).
//!
//! [`Measurement::to_full_link`]: vram_engine::measured::Measurement::to_full_link
//! [`encode_arch`]: vram_engine::model::encode_arch

use vram_engine::{
    hub::parse_config, hub::parse_quantization, measured::MeasureError, model::encode_arch,
};
use vram_text::{error, measure_error, Lang};
use wasm_bindgen::prelude::wasm_bindgen;

mod hub;
mod measured_view;
pub use hub::panel::{Asked as HubAsked, Panel as HubPanel};
pub use hub::{
    gguf_reply, hub_reply, read_gguf_file, read_model, Fetch, GgufRead, GgufRepo, Got, HubAnswer,
    HubProblem, HubRead, PartsAnswer, PartsReader,
};
pub use measured_view::{measured_view_parts, MeasuredView};

/// The languages of an error's sentences, in the order a reply carries them.
pub const LANGS: [Lang; 2] = [Lang::En, Lang::Zh];

/// What a reader gives the page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// A measurement, in full link form.
    Measurement(String),
    /// A model's architecture, in link form, and the quantization its config.json names as
    /// link pairs (`w=mxfp4&wa=bf16`; empty when it names none).
    Architecture { arch: String, quantization: String },
    /// A model read from the Hub: its architecture in link form, `owner/name@revision`, the
    /// day it was read, and what was read (lines joined by `\n`), one text per [`LANGS`] entry.
    Hub {
        arch: String,
        source: String,
        read_on: String,
        lines: [String; 2],
    },
    /// A GGUF repository's model files, at the commit listed: what to say about them, and the
    /// list to pick from as escaped markup.
    GgufList {
        source: String,
        read_on: String,
        said: [String; 2],
        markup: String,
    },
    /// A GGUF file's header read from the Hub: its `gg=` summary, where and when it was read,
    /// the file's name, and what was read.
    HubGguf {
        summary: String,
        source: String,
        read_on: String,
        name: String,
        lines: [String; 2],
    },
    /// Why the input gives nothing: one sentence per entry of [`LANGS`].
    Error([String; 2]),
}

impl Reply {
    /// The array of strings the page receives: the kind first, then its text.
    pub fn into_parts(self) -> Vec<String> {
        match self {
            Reply::Measurement(full) => vec!["measurement".into(), full],
            Reply::Architecture { arch, quantization } => {
                vec!["architecture".into(), arch, quantization]
            }
            Reply::Hub {
                arch,
                source,
                read_on,
                lines: [en, zh],
            } => vec!["hub".into(), arch, source, read_on, en, zh],
            Reply::GgufList {
                source,
                read_on,
                said: [en, zh],
                markup,
            } => vec!["gguf-list".into(), source, read_on, en, zh, markup],
            Reply::HubGguf {
                summary,
                source,
                read_on,
                name,
                lines: [en, zh],
            } => vec!["hub-gguf".into(), summary, source, read_on, name, en, zh],
            Reply::Error(sentences) => {
                let mut parts = vec!["error".to_string()];
                parts.extend(sentences);
                parts
            }
        }
    }
}

/// Pasted text (a vLLM or llama.cpp log, torch's memory figures, nvidia-smi, the measuring tool's
/// JSON, a size with a unit) read as a measurement, or why not.
pub fn measurement_reply(text: &str) -> Reply {
    match vram_engine::measured::parse(text) {
        Ok(m) => Reply::Measurement(m.to_full_link()),
        Err(e) => Reply::Error(LANGS.map(|l| measure_error(l, &e))),
    }
}

/// A measurement beside the estimate, for the page (`measured_view.rs`): `["measured", table,
/// report, marker bytes, marker label]`, or nothing when an argument is not what the page writes.
#[wasm_bindgen]
pub fn measured_view(
    lang: &str,
    unit: &str,
    link: &str,
    measurement: &str,
    estimated: &str,
) -> Vec<String> {
    measured_view_parts(lang, unit, link, measurement, estimated)
}

/// `measurement_reply` for the page: `["measurement", full]` or `["error", en, zh]`.
#[wasm_bindgen]
pub fn read_measurement(text: &str) -> Vec<String> {
    measurement_reply(text).into_parts()
}

/// Why a file of `bytes` bytes is not read (the page checks a file's size before reading it).
pub fn too_large_reply(bytes: usize) -> Reply {
    let e = MeasureError::TooLarge {
        bytes,
        limit: vram_engine::measured::MAX_INPUT_BYTES,
    };
    Reply::Error(LANGS.map(|l| measure_error(l, &e)))
}

/// `too_large_reply` for the page: `["error", en, zh]`.
#[wasm_bindgen]
pub fn measurement_too_large(bytes: f64) -> Vec<String> {
    too_large_reply(bytes as usize).into_parts()
}

/// A Hugging Face config.json read as a model's architecture, or why not.
pub fn config_reply(text: &str) -> Reply {
    match parse_config(text) {
        Ok(arch) => Reply::Architecture {
            arch: encode_arch(&arch),
            quantization: parse_quantization(text)
                .ok()
                .flatten()
                .map_or(String::new(), |q| q.to_text()),
        },
        Err(e) => Reply::Error(LANGS.map(|l| error(l, &e))),
    }
}

/// `config_reply` for the page: `["architecture", arch, quantization]` or `["error", en, zh]`.
#[wasm_bindgen]
pub fn read_config(text: &str) -> Vec<String> {
    config_reply(text).into_parts()
}

/// The Hub id box this module runs (`hub/panel.rs`), in the browser: the page's sink for its
/// messages, the page's loader of the llama.cpp module's GGUF reader, and the panel.
#[cfg(target_arch = "wasm32")]
mod hub_box {
    use std::cell::RefCell;

    use js_sys::{Array, Function, Promise};
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    use wasm_bindgen_futures::JsFuture;

    use crate::hub::browser::{read_hub, read_hub_gguf, Request};
    use crate::hub::panel::{Asked, Panel};
    use vram_text::Lang;

    struct Open {
        panel: Panel,
        sink: Function,
        gguf_reader: Function,
    }

    thread_local! {
        static OPEN: RefCell<Option<Open>> = const { RefCell::new(None) };
    }

    /// Hands each message to the page's sink (no borrow of the panel held: the page may call
    /// back).
    fn send(sink: &Function, messages: Vec<Vec<String>>) {
        for m in messages {
            let parts: Array = m.iter().map(|p| JsValue::from_str(p)).collect();
            let _ = sink.call1(&JsValue::NULL, &parts);
        }
    }

    /// Opens the box in `lang` on the model `id` and the endpoint `endpoint` (empty:
    /// huggingface.co): its form and what it says go to `sink`; `gguf_reader` returns a Promise
    /// of the llama.cpp module's `read_gguf_parts`.
    #[wasm_bindgen]
    pub fn hub_open(sink: Function, gguf_reader: Function, lang: &str, id: &str, endpoint: &str) {
        let panel = Panel::new(Lang::from_key(lang).unwrap_or(Lang::En), id, endpoint);
        let first = vec![panel.form(), panel.said()];
        OPEN.with(|o| {
            *o.borrow_mut() = Some(Open {
                panel,
                sink: sink.clone(),
                gguf_reader,
            })
        });
        send(&sink, first);
    }

    /// An event of the box (`Panel::event`), with the request timeout the page gives.
    #[wasm_bindgen]
    pub fn hub_event(kind: &str, target: &str, value: &str, parts: &str, timeout_ms: f64) {
        let Some((asked, sink, reader)) = OPEN.with(|o| {
            o.borrow_mut().as_mut().map(|open| {
                let asked = open.panel.event(kind, target, value, parts);
                (asked, open.sink.clone(), open.gguf_reader.clone())
            })
        }) else {
            return;
        };
        match asked {
            Asked::Say(messages) => send(&sink, messages),
            asked => {
                send(
                    &sink,
                    OPEN.with(|o| o.borrow().as_ref().map(|o| vec![o.panel.said()]))
                        .unwrap_or_default(),
                );
                wasm_bindgen_futures::spawn_local(answer(asked, sink, reader, timeout_ms));
            }
        }
    }

    /// Runs a read or a pick, then tells the panel (and the page) what came back.
    async fn answer(asked: Asked, sink: Function, reader: Function, timeout_ms: f64) {
        let reply = match asked {
            Asked::Read {
                id,
                endpoint,
                token,
            } => read_hub(&id, &endpoint, &token, timeout_ms)
                .await
                .into_parts(),
            Asked::Pick {
                source,
                read_on,
                parts,
                endpoint,
                token,
            } => match loaded_reader(&reader).await {
                Some(reader) => {
                    let request = Request {
                        endpoint: &endpoint,
                        token: &token,
                        timeout_ms,
                    };
                    read_hub_gguf(&source, &read_on, &parts, &request, reader)
                        .await
                        .into_parts()
                }
                None => Vec::new(),
            },
            Asked::Say(_) => return,
        };
        let messages = OPEN.with(|o| o.borrow_mut().as_mut().map(|o| o.panel.answered(reply)));
        send(&sink, messages.unwrap_or_default());
    }

    /// The llama.cpp module's reader, loaded by the page's function.
    async fn loaded_reader(loader: &Function) -> Option<Function> {
        let promise: Promise = loader.call0(&JsValue::NULL).ok()?.dyn_into().ok()?;
        JsFuture::from(promise).await.ok()?.dyn_into().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vram_engine::{measured::Level, measured::Measurement, model::decode_arch, GIB};

    const LLAMA_CONFIG: &str = r#"{"architectures": ["LlamaForCausalLM"], "model_type": "llama",
        "vocab_size": 128256, "hidden_size": 4096, "intermediate_size": 14336,
        "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
        "max_position_embeddings": 131072, "tie_word_embeddings": false}"#;

    #[test]
    fn a_config_comes_back_as_an_architecture_the_page_reads_to_the_same_model() {
        let Reply::Architecture { arch, quantization } = config_reply(LLAMA_CONFIG) else {
            panic!("no architecture from the config");
        };
        assert_eq!(quantization, "");
        let a = decode_arch(&arch).unwrap();
        assert_eq!(a, parse_config(LLAMA_CONFIG).unwrap());
        assert_eq!((a.hidden, a.layers, a.kv_heads), (4096, 32, 8));
    }

    #[test]
    fn a_quantized_config_comes_back_with_its_format_and_parts_as_link_pairs() {
        let config = LLAMA_CONFIG.replace(
            "\"tie_word_embeddings\": false",
            r#""tie_word_embeddings": false, "quantization_config": {"quant_method": "bitsandbytes",
            "load_in_4bit": true, "llm_int8_skip_modules": ["lm_head", "self_attn"]}"#,
        );
        let Reply::Architecture { quantization, .. } = config_reply(&config) else {
            panic!("no architecture from the config");
        };
        assert_eq!(quantization, "w=fp4&wa=bf16&wh=bf16");
    }

    #[test]
    fn a_config_that_is_not_json_comes_back_as_an_error_in_both_languages() {
        let parts = config_reply("{hidden_size: 4096").into_parts();
        assert_eq!(parts.len(), 3, "{parts:?}");
        assert_eq!(parts[0], "error");
        assert!(!parts[1].is_empty() && parts[1] != parts[2], "{parts:?}");
    }

    #[test]
    fn a_pasted_size_comes_back_as_a_full_link_the_page_reads_to_the_same_measurement() {
        let text = "21.3 GiB allocated";
        let Reply::Measurement(full) = measurement_reply(text) else {
            panic!("no measurement from {text}");
        };
        let m = Measurement::from_full_link(&full).unwrap();
        assert_eq!(m, vram_engine::measured::parse(text).unwrap());
        let f = m.figure(Level::Allocated).unwrap();
        assert!(f.bytes > 21 * GIB && f.bytes < 22 * GIB, "{}", f.bytes);
    }

    #[test]
    fn text_without_a_figure_comes_back_as_an_error_in_english_and_chinese() {
        let reply = measurement_reply("hello");
        let parts = reply.clone().into_parts();
        assert_eq!(parts.len(), 3);
        assert_eq!(parts[0], "error");
        assert!(
            parts[1].starts_with("no memory figure found"),
            "{}",
            parts[1]
        );
        assert!(parts[2].contains("没有找到显存数字"), "{}", parts[2]);
        assert_eq!(reply, Reply::Error([parts[1].clone(), parts[2].clone()]));
    }

    #[test]
    fn a_file_too_large_to_read_is_refused_with_its_size_in_kib() {
        let Reply::Error([en, zh]) = too_large_reply(300 * 1024) else {
            panic!("a size is always refused");
        };
        assert!(en.contains("300 KiB") && en.contains("256 KiB"), "{en}");
        assert!(zh.contains("300 KiB"), "{zh}");
    }

    #[test]
    fn a_measurement_reply_is_its_kind_then_its_full_link() {
        let parts = measurement_reply("18.5 GB").into_parts();
        assert_eq!(parts[0], "measurement");
        assert_eq!(parts.len(), 2);
        assert!(
            Measurement::from_full_link(&parts[1]).is_ok(),
            "{}",
            parts[1]
        );
    }
}
