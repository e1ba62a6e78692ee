//! The on-demand module: readers of what a user pastes or uploads, which a first visit does not
//! need. Trunk builds this crate into `dist/` beside the page and the page imports it with a
//! dynamic `import()` the first time one is needed (`src/readers.rs`), so its code and sentences
//! stay out of the first load.
//!
//! # Interface
//!
//! Each export takes plain JavaScript values (text, bytes, numbers) or the postcard bytes of a
//! `vram-messages` type, and returns the postcard bytes of one (`vram_messages::encode`); the
//! page calls it by name and decodes the reply into the same type (`src/modules.rs`, `call`):
//!
//! - `read_measurement`, `read_config`, `measurement_too_large`: a [`ReaderReply`]: a
//!   measurement in [`Measurement::to_full_link`] form, an architecture in [`encode_arch`] form
//!   with the quantization its config.json names, or why the text gives nothing, in both
//!   languages ([`LANGS`]);
//! - `measured_view`: an `Option<MeasuredView>`, a measurement beside the estimate as markup
//!   (`measured_view.rs`);
//! - `hub_open` (a [`vram_messages::HubOpen`]) and `hub_event` (a [`vram_messages::HubEvent`]):
//!   the Hub id box runs here (`hub/panel.rs`) and sends the page's sink a
//!   [`vram_messages::HubMessage`] per thing to show or apply.
//!
//! To add a reader: a pure `*_reply` function returning a `vram-messages` type (tested
//! natively), a `#[wasm_bindgen]` wrapper returning its `encode`d bytes, and on the page one
//! async function in `src/readers.rs` that `call`s it. Keep what the page already has (the
//! engine's link codecs) on the page side, the readers and their sentences here.
//! `scripts/size_budget.py` gates this module apart from the first load.
//!
//! [`Measurement::to_full_link`]: vram_engine::measured::Measurement::to_full_link
//! [`encode_arch`]: vram_engine::model::encode_arch

use vram_engine::{
    hub::parse_config, hub::parse_quantization, measured::MeasureError, model::encode_arch,
};
use vram_messages::encode;
pub use vram_messages::{MeasuredView, ReaderReply};
use vram_text::{error, measure_error, Lang};
use wasm_bindgen::prelude::wasm_bindgen;

mod hub;
mod measured_view;
pub use hub::panel::{Asked as HubAsked, Panel as HubPanel};
pub use hub::{
    gguf_reply, hub_reply, read_gguf_file, read_model, Fetch, GgufRead, GgufRepo, Got, HubAnswer,
    HubProblem, HubRead, HubReply, PartsReader,
};
pub use measured_view::measured_view_of;

/// The languages of an error's sentences, in the order a reply carries them.
pub const LANGS: [Lang; 2] = [Lang::En, Lang::Zh];

/// Pasted text (a vLLM or llama.cpp log, torch's memory figures, nvidia-smi, the measuring tool's
/// JSON, a size with a unit) read as a measurement, or why not.
pub fn measurement_reply(text: &str) -> ReaderReply {
    match vram_engine::measured::parse(text) {
        Ok(m) => ReaderReply::Measurement(m.to_full_link()),
        Err(e) => ReaderReply::Error(LANGS.map(|l| measure_error(l, &e))),
    }
}

/// A measurement beside the estimate, for the page (`measured_view.rs`): an
/// `Option<MeasuredView>`, None when an argument is not what the page writes.
#[wasm_bindgen]
pub fn measured_view(
    lang: &str,
    unit: &str,
    link: &str,
    measurement: &str,
    estimated: &str,
) -> Vec<u8> {
    encode(&measured_view_of(lang, unit, link, measurement, estimated))
}

/// `measurement_reply` for the page.
#[wasm_bindgen]
pub fn read_measurement(text: &str) -> Vec<u8> {
    encode(&measurement_reply(text))
}

/// Why a file of `bytes` bytes is not read (the page checks a file's size before reading it).
pub fn too_large_reply(bytes: usize) -> ReaderReply {
    let e = MeasureError::TooLarge {
        bytes,
        limit: vram_engine::measured::MAX_INPUT_BYTES,
    };
    ReaderReply::Error(LANGS.map(|l| measure_error(l, &e)))
}

/// `too_large_reply` for the page.
#[wasm_bindgen]
pub fn measurement_too_large(bytes: f64) -> Vec<u8> {
    encode(&too_large_reply(bytes as usize))
}

/// A Hugging Face config.json read as a model's architecture, or why not.
pub fn config_reply(text: &str) -> ReaderReply {
    match parse_config(text) {
        Ok(arch) => ReaderReply::Architecture {
            arch: encode_arch(&arch),
            quantization: parse_quantization(text)
                .ok()
                .flatten()
                .map_or(String::new(), |q| q.to_text()),
        },
        Err(e) => ReaderReply::Error(LANGS.map(|l| error(l, &e))),
    }
}

/// `config_reply` for the page.
#[wasm_bindgen]
pub fn read_config(text: &str) -> Vec<u8> {
    encode(&config_reply(text))
}

/// The Hub id box this module runs (`hub/panel.rs`), in the browser: the page's sink for its
/// messages, the page's loader of the llama.cpp module's GGUF reader, and the panel.
#[cfg(target_arch = "wasm32")]
mod hub_box {
    use std::cell::RefCell;

    use js_sys::{Function, Promise, Uint8Array};
    use vram_messages::{decode, encode, HubEvent, HubMessage, HubOpen};
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

    /// Hands each message to the page's sink as its bytes (no borrow of the panel held: the
    /// page may call back).
    fn send(sink: &Function, messages: Vec<HubMessage>) {
        for m in messages {
            let _ = sink.call1(&JsValue::NULL, &Uint8Array::from(encode(&m).as_slice()));
        }
    }

    /// Opens the box as `open` (a [`HubOpen`]'s bytes) says: its form and what it says go to
    /// `sink`; `gguf_reader` returns a Promise of the llama.cpp module's `read_gguf_parts`.
    #[wasm_bindgen]
    pub fn hub_open(sink: Function, gguf_reader: Function, open: &[u8]) {
        let Some(open) = decode::<HubOpen>(open) else {
            return;
        };
        let lang = Lang::from_key(&open.lang).unwrap_or(Lang::En);
        let panel = Panel::new(lang, &open.id, &open.endpoint);
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

    /// An event of the box (a [`HubEvent`]'s bytes, `Panel::event`), with the request timeout
    /// the page gives.
    #[wasm_bindgen]
    pub fn hub_event(event: &[u8], timeout_ms: f64) {
        let Some(event) = decode::<HubEvent>(event) else {
            return;
        };
        let Some((asked, sink, reader)) = OPEN.with(|o| {
            o.borrow_mut().as_mut().map(|open| {
                let asked = open.panel.event(&event);
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
            } => Some(read_hub(&id, &endpoint, &token, timeout_ms).await),
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
                    Some(read_hub_gguf(&source, &read_on, &parts, &request, reader).await)
                }
                None => None,
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
        let ReaderReply::Architecture { arch, quantization } = config_reply(LLAMA_CONFIG) else {
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
        let ReaderReply::Architecture { quantization, .. } = config_reply(&config) else {
            panic!("no architecture from the config");
        };
        assert_eq!(quantization, "w=fp4&wa=bf16&wh=bf16");
    }

    #[test]
    fn a_config_that_is_not_json_comes_back_as_an_error_in_both_languages() {
        let ReaderReply::Error([en, zh]) = config_reply("{hidden_size: 4096") else {
            panic!("a config that is not JSON is refused");
        };
        assert!(!en.is_empty() && en != zh, "{en} / {zh}");
    }

    #[test]
    fn a_pasted_size_comes_back_as_a_full_link_the_page_reads_to_the_same_measurement() {
        let text = "21.3 GiB allocated";
        let ReaderReply::Measurement(full) = measurement_reply(text) else {
            panic!("no measurement from {text}");
        };
        let m = Measurement::from_full_link(&full).unwrap();
        assert_eq!(m, vram_engine::measured::parse(text).unwrap());
        let f = m.figure(Level::Allocated).unwrap();
        assert!(f.bytes > 21 * GIB && f.bytes < 22 * GIB, "{}", f.bytes);
    }

    #[test]
    fn text_without_a_figure_comes_back_as_an_error_in_english_and_chinese() {
        let ReaderReply::Error([en, zh]) = measurement_reply("hello") else {
            panic!("text without a figure is refused");
        };
        assert!(en.starts_with("no memory figure found"), "{en}");
        assert!(zh.contains("没有找到显存数字"), "{zh}");
    }

    #[test]
    fn a_file_too_large_to_read_is_refused_with_its_size_in_kib() {
        let ReaderReply::Error([en, zh]) = too_large_reply(300 * 1024) else {
            panic!("a size is always refused");
        };
        assert!(en.contains("300 KiB") && en.contains("256 KiB"), "{en}");
        assert!(zh.contains("300 KiB"), "{zh}");
    }

    #[test]
    fn a_measurement_reaches_the_page_as_bytes_that_decode_to_its_full_link() {
        let bytes = read_measurement("18.5 GB");
        let Some(ReaderReply::Measurement(full)) = vram_messages::decode(&bytes) else {
            panic!("no measurement in {bytes:?}");
        };
        assert_eq!(
            Measurement::from_full_link(&full).unwrap(),
            vram_engine::measured::parse("18.5 GB").unwrap()
        );
    }
}
