//! config.json of encoder–decoder families (`t5`, `mt5`, `bart`, `mbart`, `whisper`) into an
//! [`Architecture`] of the decoder with its [`Encoder`], with the defaults of transformers'
//! `T5Config`, `MT5Config`, `BartConfig`, `MBartConfig` and `WhisperConfig`.

use super::fields::Fields;
use super::within;
use crate::error::EngineError;
use crate::model::{Architecture, Encoder, MlpKind, NormKind};

/// Whether `model_type` is an encoder–decoder family the engine reads.
pub(super) fn is_encoder_decoder(model_type: &str) -> bool {
    matches!(model_type, "t5" | "mt5" | "bart" | "mbart" | "whisper")
}

/// The defaults transformers fills in for each family's config class.
pub(super) fn encdec_defaults(model_type: &str) -> &'static [(&'static str, u64)] {
    match model_type {
        // T5Config; `n_positions` (no longer a T5Config field) is what older configs write
        "t5" => &[
            ("vocab_size", 32_128),
            ("d_model", 512),
            ("d_kv", 64),
            ("d_ff", 2_048),
            ("num_layers", 6),
            ("num_heads", 8),
            ("relative_attention_num_buckets", 32),
            ("n_positions", 512),
        ],
        // MT5Config (mt5-small's shape)
        "mt5" => &[
            ("vocab_size", 250_112),
            ("d_model", 512),
            ("d_kv", 64),
            ("d_ff", 1_024),
            ("num_layers", 8),
            ("num_heads", 6),
            ("relative_attention_num_buckets", 32),
            ("n_positions", 1_024),
        ],
        // BartConfig / MBartConfig (their defaults are the large models')
        "bart" | "mbart" => &[
            ("vocab_size", 50_265),
            ("d_model", 1_024),
            ("encoder_layers", 12),
            ("decoder_layers", 12),
            ("encoder_attention_heads", 16),
            ("decoder_attention_heads", 16),
            ("encoder_ffn_dim", 4_096),
            ("decoder_ffn_dim", 4_096),
            ("max_position_embeddings", 1_024),
        ],
        // WhisperConfig (the defaults are whisper-tiny's but for the positions)
        "whisper" => &[
            ("vocab_size", 51_865),
            ("d_model", 384),
            ("encoder_layers", 4),
            ("decoder_layers", 4),
            ("encoder_attention_heads", 6),
            ("decoder_attention_heads", 6),
            ("encoder_ffn_dim", 1_536),
            ("decoder_ffn_dim", 1_536),
            ("num_mel_bins", 80),
            ("max_source_positions", 1_500),
            ("max_target_positions", 448),
        ],
        _ => &[],
    }
}

/// A field within `1..=max`, required (or the config class's default).
fn field(f: &Fields, names: &[&str], max: u64) -> Result<u64, EngineError> {
    within(names[0], f.required(names)?, 1, max)
}

/// Reads a T5, mT5, BART, mBART or Whisper config.json.
pub(super) fn read_encdec(f: &Fields, model_type: &str) -> Result<Architecture, EngineError> {
    if model_type == "t5" || model_type == "mt5" {
        return read_t5(f, model_type);
    }
    let hidden = field(f, &["d_model"], 131_072)?;
    let vocab = field(f, &["vocab_size"], 4_000_000)?;
    let enc_heads = field(f, &["encoder_attention_heads"], 4_096)?;
    let dec_heads = field(f, &["decoder_attention_heads"], 4_096)?;
    let whisper = model_type == "whisper";
    let (source, target) = if whisper {
        (
            field(f, &["max_source_positions"], 1 << 24)?,
            field(f, &["max_target_positions"], 1 << 24)?,
        )
    } else {
        // BART's learned positions start at row 2 (BartLearnedPositionalEmbedding's offset)
        let max = field(f, &["max_position_embeddings"], 1 << 24)?;
        (max, max)
    };
    let offset = if whisper { 0 } else { 2 };
    let tied = f.boolean(&["tie_word_embeddings"]).unwrap_or(true);
    let mut a = Architecture::llama(
        vocab,
        hidden,
        field(f, &["decoder_ffn_dim"], 1_048_576)?,
        field(f, &["decoder_layers"], 1_024)?,
        dec_heads,
        dec_heads,
        tied,
    );
    a.mlp = MlpKind::Plain;
    a.norm = NormKind::Layer;
    a.norms_per_layer = 3;
    (a.qkv_bias, a.out_bias, a.mlp_bias) = (true, true, true);
    a.positions = target + offset;
    a.max_context = target;
    a.encoder = Some(Encoder {
        layers: field(f, &["encoder_layers"], 1_024)?,
        heads: enc_heads,
        head_dim: hidden / enc_heads,
        ffn: field(f, &["encoder_ffn_dim"], 1_048_576)?,
        positions: source + offset,
        max_source: Some(source),
        fixed_source: whisper,
        buckets: 0,
        mel_bins: if whisper {
            field(f, &["num_mel_bins"], 4_096)?
        } else {
            0
        },
        stack_norms: if model_type == "mbart" { 2 } else { 1 },
        k_bias: !whisper,
    });
    Ok(a)
}

/// T5 and mT5: relative attention, RMS norms (a weight only), no biases; v1.1 / Flan-T5 / mT5
/// have a gated-GELU FFN and an untied head.
fn read_t5(f: &Fields, model_type: &str) -> Result<Architecture, EngineError> {
    let layers = field(f, &["num_layers"], 1_024)?;
    let heads = field(f, &["num_heads"], 4_096)?;
    let head_dim = field(f, &["d_kv"], 4_096)?;
    let ffn = field(f, &["d_ff"], 1_048_576)?;
    // T5Config's feed_forward_proj defaults to "relu", MT5Config's to "gated-gelu"
    let gated = f
        .string(&["feed_forward_proj"])
        .map_or(model_type == "mt5", |p| p.starts_with("gated-"));
    // MT5Config's tie_word_embeddings defaults to false, T5Config's to true
    let tied = f
        .boolean(&["tie_word_embeddings"])
        .unwrap_or(model_type == "t5");
    let mut a = Architecture::llama(
        field(f, &["vocab_size"], 4_000_000)?,
        field(f, &["d_model"], 131_072)?,
        ffn,
        within(
            "num_decoder_layers",
            f.uint(&["num_decoder_layers"])?.unwrap_or(layers),
            1,
            1_024,
        )?,
        heads,
        heads,
        tied,
    );
    a.head_dim = head_dim;
    a.mlp = if gated {
        MlpKind::Gated
    } else {
        MlpKind::Plain
    };
    a.norms_per_layer = 3;
    a.max_context = field(f, &["n_positions"], 1 << 28)?;
    a.encoder = Some(Encoder {
        layers,
        heads,
        head_dim,
        ffn,
        positions: 0,
        max_source: None,
        fixed_source: false,
        buckets: within(
            "relative_attention_num_buckets",
            f.required(&["relative_attention_num_buckets"])?,
            0,
            65_536,
        )?,
        mel_bins: 0,
        stack_norms: 1,
        k_bias: true,
    });
    Ok(a)
}
