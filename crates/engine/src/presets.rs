//! Preset models, each from the fields of its real config.json.

use std::sync::OnceLock;

use crate::config;
use crate::model::Architecture;

/// A preset model.
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    /// Short id used in links and on the command line.
    pub id: &'static str,
    /// Display name (the Hugging Face repository).
    pub name: &'static str,
    /// The fields of its config.json that the engine reads.
    pub config: &'static str,
}

impl Preset {
    /// The preset's architecture, parsed once.
    pub fn architecture(&self) -> Architecture {
        let idx = PRESETS.iter().position(|p| p.id == self.id).expect("preset from the list");
        parsed()[idx].clone()
    }
}

fn parsed() -> &'static Vec<Architecture> {
    static CELL: OnceLock<Vec<Architecture>> = OnceLock::new();
    CELL.get_or_init(|| {
        PRESETS
            .iter()
            .map(|p| config::parse_config(p.config).unwrap_or_else(|e| panic!("preset {} does not parse: {e}", p.id)))
            .collect()
    })
}

/// The preset with id `id`.
pub fn find(id: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.id.eq_ignore_ascii_case(id))
}

/// Every preset.
pub fn all() -> &'static [Preset] {
    PRESETS
}

const PRESETS: &[Preset] = &[
    Preset {
        id: "llama-3.1-8b",
        name: "meta-llama/Llama-3.1-8B",
        config: r#"{"model_type":"llama","vocab_size":128256,"hidden_size":4096,"intermediate_size":14336,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,"head_dim":128,"tie_word_embeddings":false,"max_position_embeddings":131072}"#,
    },
    Preset {
        id: "llama-2-7b",
        name: "meta-llama/Llama-2-7b-hf",
        config: r#"{"model_type":"llama","vocab_size":32000,"hidden_size":4096,"intermediate_size":11008,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":32,"tie_word_embeddings":false,"max_position_embeddings":4096}"#,
    },
    Preset {
        id: "llama-3.2-3b",
        name: "meta-llama/Llama-3.2-3B",
        config: r#"{"model_type":"llama","vocab_size":128256,"hidden_size":3072,"intermediate_size":8192,"num_hidden_layers":28,"num_attention_heads":24,"num_key_value_heads":8,"head_dim":128,"tie_word_embeddings":true,"max_position_embeddings":131072}"#,
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_parses_and_has_a_unique_id() {
        for p in all() {
            p.architecture().validate().unwrap();
            assert_eq!(all().iter().filter(|q| q.id == p.id).count(), 1, "{}", p.id);
        }
    }
}
