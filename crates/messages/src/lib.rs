//! The messages between the page and its on-demand modules (`crates/readers`, `crates/local`,
//! `crates/zh`), as plain types. Each crosses wasm-bindgen as postcard bytes (a `Uint8Array`):
//! the sender writes it with [`encode`], the receiver reads it with [`decode`] into the same
//! type, so neither side names a message by a string.
//!
//! A message's content is what the engine's codecs write (a measurement's full link, an
//! architecture's `encode_arch` text, a GGUF summary's `gg=` text) or markup the module wrote;
//! sentences come in both of the page's languages, English then Chinese ([`Said`]), so the page
//! follows its language toggle without asking again.

use serde::Deserialize;
/// The traits a message's type has, for code generic over messages (the page's `call`).
pub use serde::{de::DeserializeOwned, Serialize};

/// One sentence per language of the page: English, then Chinese.
pub type Said = [String; 2];

/// The bytes that carry `message`.
pub fn encode<T: Serialize>(message: &T) -> Vec<u8> {
    postcard::to_allocvec(message).unwrap_or_default()
}

/// The message of type `T` that `bytes` carry, or None when they carry none.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Option<T> {
    postcard::from_bytes(bytes).ok()
}

/// What a reader of pasted or uploaded text answers (`read_measurement`, `read_config`,
/// `measurement_too_large`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReaderReply {
    /// A measurement, in `Measurement::to_full_link` form.
    Measurement(String),
    /// A model's architecture in `encode_arch` form, and the quantization its config.json names
    /// in `Quantization::to_text` form (empty when none).
    Architecture { arch: String, quantization: String },
    /// Why the text gives nothing.
    Error(Said),
}

/// A measurement beside the estimate (`measured_view`): markup the readers module writes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MeasuredView {
    /// The comparison table.
    pub table: String,
    /// The mismatch report (empty unless a figure is more than 10 % off).
    pub report: String,
    /// The figure the chart marks: its bytes and label ("PyTorch reserved (peak): 22.50 GiB").
    pub marker: Option<(u64, String)>,
}

/// How the page opens the Hub id box (`hub_open`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HubOpen {
    /// The page's language key.
    pub lang: String,
    /// The model id the box starts with (empty: none).
    pub id: String,
    /// The endpoint's base URL (empty: huggingface.co).
    pub endpoint: String,
}

/// An event of the Hub id box, forwarded by the page (`hub_event`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum HubEvent {
    /// The page switched to the language with this key.
    Lang(String),
    /// The element `target` of the box now holds `value` (an input event).
    Input { target: String, value: String },
    /// The element `target` committed `value` (a change event).
    Change { target: String, value: String },
    /// A click on the element `target`.
    Click { target: String },
    /// A click on a listed GGUF file: its paths (`data-parts`, joined by `\n`).
    Pick(String),
    /// Enter pressed in the element `target`.
    Enter { target: String },
}

/// What the Hub id box tells the page (to the sink the page gave `hub_open`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum HubMessage {
    /// The form: the id box, the Read button, the endpoint and the token, with what was typed.
    Form(String),
    /// What the box says under the form: reading, a refusal, what was read, the files to pick.
    Said(String),
    /// A model read: its architecture in `encode_arch` form, `owner/name@revision` and the day
    /// it was read (`YYYY-MM-DD`).
    Model {
        arch: String,
        source: String,
        read_on: String,
    },
    /// A GGUF file's header read: its `gg=` summary, where and when, and the file's name.
    Gguf {
        summary: String,
        source: String,
        read_on: String,
        name: String,
    },
    /// The endpoint typed, valid (empty: huggingface.co).
    Endpoint(String),
    /// GGUF files are listed, so the llama.cpp module will be needed.
    PreloadLocal,
}

/// What the llama.cpp module's GGUF reader answers for a file's first bytes
/// (`read_gguf_header`, `read_gguf_parts`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum GgufReply {
    /// Every header read: the model's summary in `gg=` text form.
    Gguf(String),
    /// A multimodal projector, in `mp=` text form.
    Projector(String),
    /// Read again with this many bytes from the file's start.
    More(u64),
    /// Read again with this many bytes from the start of this part (of a split model).
    MorePart { part: u32, bytes: u64 },
    /// Why the file gives no model.
    Error(Said),
}

/// A local run's answer in one language: its results and its decode-speed chart, as markup.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalMarkup {
    pub results: String,
    pub chart: String,
}

/// A local run's answer (`local_view`), English then Chinese.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalView(pub [LocalMarkup; 2]);

/// The Chinese of `vram-text`'s largest tables, in `vram_text::zh_table`'s form (`table`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZhTable(pub String);

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<T: Serialize + DeserializeOwned + PartialEq + core::fmt::Debug>(message: T) {
        assert_eq!(decode::<T>(&encode(&message)), Some(message));
    }

    fn said() -> Said {
        ["no figure".into(), "没有数字".into()]
    }

    #[test]
    fn every_reader_reply_comes_back_as_it_was_sent() {
        round_trip(ReaderReply::Measurement("ms=a21.3g".into()));
        round_trip(ReaderReply::Architecture {
            arch: "llama~4096~32".into(),
            quantization: String::new(),
        });
        round_trip(ReaderReply::Error(said()));
    }

    #[test]
    fn a_measured_view_keeps_its_markup_and_its_marker_or_the_lack_of_one() {
        let view = MeasuredView {
            table: "<table></table>".into(),
            report: String::new(),
            marker: Some((22_870_000_000, "PyTorch reserved (peak): 21.30 GiB".into())),
        };
        round_trip(view.clone());
        round_trip(Some(MeasuredView {
            marker: None,
            ..view
        }));
        round_trip(None::<MeasuredView>);
    }

    #[test]
    fn the_hub_boxs_opening_events_and_messages_come_back_as_they_were_sent() {
        round_trip(HubOpen {
            lang: "zh".into(),
            id: "Qwen/Qwen2.5-7B".into(),
            endpoint: String::new(),
        });
        round_trip(HubEvent::Lang("en".into()));
        round_trip(HubEvent::Input {
            target: "hub-id".into(),
            value: "org/模型".into(),
        });
        round_trip(HubEvent::Pick("a-00001.gguf\na-00002.gguf".into()));
        round_trip(HubMessage::Gguf {
            summary: "llama~L1".into(),
            source: "org/m-GGUF@abc".into(),
            read_on: "2026-12-02".into(),
            name: "m-Q4_K_M.gguf".into(),
        });
        round_trip(HubMessage::PreloadLocal);
    }

    #[test]
    fn gguf_replies_keep_their_byte_counts_whole() {
        round_trip(GgufReply::More(268_435_456));
        round_trip(GgufReply::MorePart {
            part: 1,
            bytes: u64::MAX,
        });
        round_trip(GgufReply::Projector("clip~1".into()));
        round_trip(GgufReply::Error(said()));
    }

    #[test]
    fn a_local_view_keeps_each_languages_results_and_chart_apart() {
        let markup = |r: &str, c: &str| LocalMarkup {
            results: r.into(),
            chart: c.into(),
        };
        round_trip(LocalView([
            markup("<p>fits</p>", "<svg/>"),
            markup("<p>放得下</p>", ""),
        ]));
        round_trip(ZhTable("Sequence length\t序列长度\n".into()));
    }

    #[test]
    fn bytes_cut_short_or_empty_carry_no_message() {
        let bytes = encode(&ReaderReply::Measurement("ms=a21.3g".into()));
        assert_eq!(decode::<ReaderReply>(&bytes[..bytes.len() - 1]), None);
        assert_eq!(decode::<ReaderReply>(&[]), None);
        assert_eq!(decode::<GgufReply>(&[9]), None, "no such variant");
    }
}
