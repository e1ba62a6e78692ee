//! An architecture as the compact text links and presets carry: `V128256_h4096_...`, letters
//! naming a field and digits giving its value.

use crate::dtype::WeightFormat;
use crate::error::EngineError;
use crate::model::{
    Architecture, Encoder, Mixer, Mla, MlpKind, Moe, NormKind, Recurrent, StoredWeights,
};

const ARCH_KEYS: &[&str] = &[
    "V", "h", "f", "L", "H", "kv", "hd", "tie", "plain", "ln", "npl", "qb", "ob", "mb", "qkn",
    "sink", "hb", "pos", "ctx", "drop", "x", "E", "k", "ef", "sf", "dl", "eb", "rb", "sg", "qr",
    "kvr", "rd", "nd", "vd", "sw", "swl", "wf", "wb", "eL", "eH", "ehd", "eff", "epos", "smax",
    "sfix", "rab", "mel", "sn", "nkb", "rm", "rL", "aL", "fL", "rH", "rhd", "rg", "rs", "rk", "ri",
    "rdt", "rcb", "rpb", "rnn", "ga", "ssf", "rob", "rsb", "rar", "raa",
];

/// The most bytes a link may say a checkpoint's files hold (1 PiB).
const MAX_STORED_BYTES: u64 = 1 << 50;

/// Writes an architecture as `V128256_h4096_...`: letters name a field, digits give its value.
pub fn encode_arch(a: &Architecture) -> String {
    let b = |x: bool| u64::from(x);
    let mut parts = vec![
        ("V", a.vocab),
        ("h", a.hidden),
        ("f", a.intermediate),
        ("L", a.layers),
        ("H", a.heads),
        ("kv", a.kv_heads),
        ("hd", a.head_dim),
        ("tie", b(a.tied)),
        ("ctx", a.max_context),
    ];
    let flags = [
        ("plain", a.mlp == MlpKind::Plain),
        ("ln", a.norm == NormKind::Layer),
        ("qb", a.qkv_bias),
        ("ob", a.out_bias),
        ("mb", a.mlp_bias),
        ("qkn", a.qk_norm),
        ("sink", a.attn_sinks),
        ("hb", a.head_bias),
        ("drop", a.dropout),
    ];
    parts.extend(flags.iter().filter(|(_, on)| *on).map(|(k, _)| (*k, 1)));
    if a.norms_per_layer != 2 {
        parts.push(("npl", a.norms_per_layer));
    }
    for (k, v) in [("pos", a.positions), ("x", a.extra_params)] {
        if v > 0 {
            parts.push((k, v));
        }
    }
    if let Some(m) = &a.moe {
        parts.extend([
            ("E", m.experts),
            ("k", m.top_k),
            ("ef", m.expert_ffn),
            ("sf", m.shared_ffn),
            ("dl", m.dense_layers),
        ]);
        parts.extend(
            [
                ("eb", m.expert_bias),
                ("rb", m.router_bias),
                ("sg", m.shared_gate),
            ]
            .iter()
            .filter(|(_, on)| *on)
            .map(|(k, _)| (*k, 1)),
        );
    }
    if let Some(m) = &a.mla {
        parts.extend([
            ("qr", m.q_lora_rank),
            ("kvr", m.kv_lora_rank),
            ("rd", m.rope_dim),
            ("nd", m.nope_dim),
            ("vd", m.v_head_dim),
        ]);
    }
    if let Some(w) = a.sliding_window {
        parts.extend([("sw", w), ("swl", a.sliding_layers)]);
    }
    if let Some(st) = &a.stored {
        parts.extend([("wf", stored_format_code(st.format)), ("wb", st.bytes)]);
    }
    if let Some(e) = &a.encoder {
        encode_encoder(e, &mut parts);
    }
    if let Some(r) = &a.recurrent {
        encode_recurrent(r, &mut parts);
    }
    parts
        .iter()
        .map(|(k, v)| format!("{k}{v}"))
        .collect::<Vec<_>>()
        .join("_")
}

/// Reads what [`encode_arch`] writes.
pub fn decode_arch(text: &str) -> Result<Architecture, EngineError> {
    // (key, value) in the order written, a key written twice read at its last value: a list
    // rather than a HashMap, whose hashing the page's first load would carry for a few dozen keys
    let mut vals: Vec<(&str, u64)> = Vec::new();
    for part in text.split('_').filter(|p| !p.is_empty()) {
        let split = part
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(part.len());
        let (k, v) = part.split_at(split);
        let key = ARCH_KEYS
            .iter()
            .find(|x| **x == k)
            .ok_or_else(|| EngineError::BadArchField(k.chars().take(20).collect()))?;
        let n: u64 = v
            .parse()
            .map_err(|_| EngineError::BadArchField(k.to_string()))?;
        vals.push((key, n));
    }
    let get = |k: &str| {
        vals.iter()
            .rev()
            .find(|(key, _)| *key == k)
            .map(|(_, n)| *n)
    };
    let need = |k: &str, field: &str| get(k).ok_or_else(|| EngineError::MissingField(field.into()));
    let heads = need("H", "num_attention_heads")?;
    let hidden = need("h", "hidden_size")?;
    let mut a = Architecture::llama(
        need("V", "vocab_size")?,
        hidden,
        need("f", "intermediate_size")?,
        need("L", "num_hidden_layers")?,
        heads,
        get("kv").unwrap_or(heads),
        get("tie") == Some(1),
    );
    let flag = |k: &str| get(k) == Some(1);
    a.head_dim = get("hd").unwrap_or(a.head_dim);
    a.max_context = get("ctx").unwrap_or(a.max_context);
    a.mlp = if flag("plain") {
        MlpKind::Plain
    } else {
        MlpKind::Gated
    };
    a.norm = if flag("ln") {
        NormKind::Layer
    } else {
        NormKind::Rms
    };
    a.qkv_bias = flag("qb");
    a.out_bias = flag("ob");
    a.mlp_bias = flag("mb");
    a.qk_norm = flag("qkn");
    a.attn_sinks = flag("sink");
    a.head_bias = flag("hb");
    a.dropout = flag("drop");
    // out-of-range values are refused by `validate` below, with a notice, rather than clamped
    a.norms_per_layer = get("npl").unwrap_or(2);
    a.positions = get("pos").unwrap_or(0);
    a.extra_params = get("x").unwrap_or(0);
    if let Some(e) = get("E") {
        a.moe = Some(Moe {
            experts: e,
            top_k: get("k").unwrap_or(2),
            expert_ffn: get("ef").unwrap_or(a.intermediate),
            shared_ffn: get("sf").unwrap_or(0),
            dense_layers: get("dl").unwrap_or(0),
            expert_bias: flag("eb"),
            router_bias: flag("rb"),
            shared_gate: flag("sg"),
        });
    }
    if let Some(kvr) = get("kvr") {
        a.mla = Some(Mla {
            q_lora_rank: get("qr").unwrap_or(0),
            kv_lora_rank: kvr,
            rope_dim: get("rd").unwrap_or(64),
            nope_dim: get("nd").unwrap_or(128),
            v_head_dim: get("vd").unwrap_or(128),
        });
    }
    if let Some(w) = get("sw") {
        a.sliding_window = Some(w);
        a.sliding_layers = get("swl").unwrap_or(a.layers).min(a.layers);
    }
    a.stored = decode_stored(get("wf"), get("wb"))?;
    a.encoder = decode_encoder(&get, a.head_dim);
    a.recurrent = decode_recurrent(&get, a.layers)?;
    a.validate()?;
    Ok(a)
}

/// An encoder–decoder model's encoder: `eL` layers, `eH` heads, `ehd` head width, `eff` FFN,
/// `epos` learned positions, `smax` longest source, `sfix` a fixed source window, `rab` relative
/// buckets, `mel` mel bins, `sn` norms at each stack's ends, `nkb` no bias on `k`.
fn encode_encoder(e: &Encoder, parts: &mut Vec<(&'static str, u64)>) {
    parts.extend([
        ("eL", e.layers),
        ("eH", e.heads),
        ("ehd", e.head_dim),
        ("eff", e.ffn),
        ("sn", e.stack_norms),
    ]);
    let optional = [
        ("epos", e.positions),
        ("smax", e.max_source.unwrap_or(0)),
        ("sfix", u64::from(e.fixed_source)),
        ("rab", e.buckets),
        ("mel", e.mel_bins),
        ("nkb", u64::from(!e.k_bias)),
    ];
    parts.extend(optional.into_iter().filter(|(_, v)| *v > 0));
}

/// Reads what [`encode_encoder`] writes; `None` when the link names no encoder (`eL`).
fn decode_encoder(get: &impl Fn(&str) -> Option<u64>, head_dim: u64) -> Option<Encoder> {
    let layers = get("eL")?;
    let heads = get("eH").unwrap_or(1);
    Some(Encoder {
        layers,
        heads,
        head_dim: get("ehd").unwrap_or(head_dim),
        ffn: get("eff").unwrap_or(1),
        positions: get("epos").unwrap_or(0),
        max_source: get("smax").filter(|n| *n > 0),
        fixed_source: get("sfix") == Some(1),
        buckets: get("rab").unwrap_or(0),
        mel_bins: get("mel").unwrap_or(0),
        stack_norms: get("sn").unwrap_or(1),
        k_bias: get("nkb") != Some(1),
    })
}

/// A hybrid model's recurrent layers: `rm` the mixer (its place in [`Mixer::ALL`]), `rL`
/// recurrent layers, `aL` attention layers, `fL` feed-forward layers, `rH` heads, `rhd` head
/// width, `rg` groups, `rs` state, `rk` kernel, `ri` inner width, `rdt` dt rank; flags `rcb`
/// conv bias, `rpb` projection biases, `rnn` no gated norm in the mixer, `ga` gated attention, `ssf` an fp32 SSM state;
/// `rob` the output projection's bias where it differs from `rpb`'s; Zamba2's `rsb` shared
/// blocks, `rar` adapter rank and flag `raa` attention adapters.
fn encode_recurrent(r: &Recurrent, parts: &mut Vec<(&'static str, u64)>) {
    let mixer = Mixer::ALL.iter().position(|m| *m == r.mixer).unwrap_or(0) as u64;
    parts.extend([
        ("rm", mixer),
        ("rL", r.layers),
        ("aL", r.attention_layers),
        ("fL", r.ffn_layers),
        ("rH", r.heads),
        ("rhd", r.head_dim),
        ("rg", r.groups),
        ("rs", r.state),
        ("rk", r.conv_kernel),
        ("ri", r.inner),
        ("rdt", r.dt_rank),
    ]);
    if r.out_bias != r.proj_bias {
        parts.push(("rob", r.out_bias as u64));
    }
    if r.shared_blocks > 0 {
        parts.extend([("rsb", r.shared_blocks), ("rar", r.adapter_rank)]);
    }
    let flags = [
        ("rcb", r.conv_bias),
        ("rpb", r.proj_bias),
        ("rnn", !r.mixer_norm),
        ("ga", r.gated_attention),
        ("ssf", r.state_fp32),
        ("raa", r.attention_adapters),
    ];
    parts.extend(flags.iter().filter(|(_, on)| *on).map(|(k, _)| (*k, 1)));
}

/// Reads what [`encode_recurrent`] writes; `None` when the link names no mixer (`rm`).
fn decode_recurrent(
    get: &impl Fn(&str) -> Option<u64>,
    layers: u64,
) -> Result<Option<Recurrent>, EngineError> {
    let Some(code) = get("rm") else {
        return Ok(None);
    };
    let mixer = *Mixer::ALL
        .get(code as usize)
        .ok_or_else(|| EngineError::BadArchField("rm".into()))?;
    let recurrent_layers = get("rL").unwrap_or(layers);
    Ok(Some(Recurrent {
        mixer,
        layers: recurrent_layers,
        attention_layers: get("aL").unwrap_or(layers.saturating_sub(recurrent_layers)),
        ffn_layers: get("fL").unwrap_or(layers),
        heads: get("rH").unwrap_or(0),
        head_dim: get("rhd").unwrap_or(0),
        groups: get("rg").unwrap_or(0),
        state: get("rs").unwrap_or(0),
        conv_kernel: get("rk").unwrap_or(4),
        inner: get("ri").unwrap_or(0),
        dt_rank: get("rdt").unwrap_or(0),
        conv_bias: get("rcb") == Some(1),
        proj_bias: get("rpb") == Some(1),
        out_bias: get("rob").map_or(get("rpb") == Some(1), |b| b == 1),
        mixer_norm: get("rnn") != Some(1),
        gated_attention: get("ga") == Some(1),
        state_fp32: get("ssf") == Some(1),
        shared_blocks: get("rsb").unwrap_or(0),
        adapter_rank: get("rar").unwrap_or(0),
        attention_adapters: get("raa") == Some(1),
    }))
}

/// The formats as `wf` numbers them: the order `WeightFormat` had when links first carried
/// them, then each format added since at the end, so a shared link keeps its format.
const STORED_FORMAT_CODES: [WeightFormat; 20] = [
    WeightFormat::Fp32,
    WeightFormat::Bf16,
    WeightFormat::GgufQ8_0,
    WeightFormat::Int8,
    WeightFormat::Fp8,
    WeightFormat::GgufQ6K,
    WeightFormat::GgufQ5KM,
    WeightFormat::GgufQ4KM,
    WeightFormat::Nf4,
    WeightFormat::Gptq4,
    WeightFormat::Awq4,
    WeightFormat::Nf4Dq,
    WeightFormat::GgufQ3KM,
    WeightFormat::GgufQ2K,
    WeightFormat::Gptq8,
    WeightFormat::Gptq3,
    WeightFormat::Fp4,
    WeightFormat::Fp4Dq,
    WeightFormat::Mxfp4,
    WeightFormat::Nvfp4,
];

/// The number `wf` writes for `format`.
fn stored_format_code(format: WeightFormat) -> u64 {
    STORED_FORMAT_CODES
        .iter()
        .position(|f| *f == format)
        .expect("every format has a link code") as u64
}

/// The checkpoint's exact bytes (`wf`: the format's position, `wb`: bytes): both or neither.
fn decode_stored(
    format: Option<u64>,
    bytes: Option<u64>,
) -> Result<Option<StoredWeights>, EngineError> {
    match (format, bytes) {
        (None, None) => Ok(None),
        (Some(f), Some(bytes)) => {
            let format = STORED_FORMAT_CODES
                .get(f as usize)
                .copied()
                .ok_or_else(|| EngineError::BadArchField("wf".into()))?;
            if !(1..=MAX_STORED_BYTES).contains(&bytes) {
                return Err(EngineError::OutOfRange {
                    setting: "wb".into(),
                    value: bytes,
                    min: 1,
                    max: MAX_STORED_BYTES,
                });
            }
            Ok(Some(StoredWeights { format, bytes }))
        }
        (Some(_), None) => Err(EngineError::BadArchField("wb".into())),
        (None, Some(_)) => Err(EngineError::BadArchField("wf".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_has_one_stored_code_and_old_codes_keep_their_format() {
        for f in WeightFormat::ALL {
            assert_eq!(STORED_FORMAT_CODES[stored_format_code(*f) as usize], *f);
        }
        assert_eq!(STORED_FORMAT_CODES.len(), WeightFormat::ALL.len());
        // links written before FP4, GPTQ 8/3-bit and the fp4 microscaling formats existed
        let arch =
            decode_arch("V32000_h4096_f11008_L32_H32_kv32_hd128_tie0_ctx4096_wf9_wb3900000000");
        assert_eq!(arch.unwrap().stored.unwrap().format, WeightFormat::Gptq4);
        let arch =
            decode_arch("V32000_h4096_f11008_L32_H32_kv32_hd128_tie0_ctx4096_wf11_wb3900000000");
        assert_eq!(arch.unwrap().stored.unwrap().format, WeightFormat::Nf4Dq);
    }

    #[test]
    fn an_architecture_field_written_twice_in_a_link_is_read_at_its_last_value() {
        let arch = decode_arch("V32000_h4096_f11008_L32_H32_kv8_L40_kv4").unwrap();
        assert_eq!((arch.layers, arch.kv_heads), (40, 4));
        let arch = decode_arch("V32000_h4096_f11008_L32_H32").unwrap();
        assert_eq!((arch.layers, arch.kv_heads), (32, 32));
    }
}
