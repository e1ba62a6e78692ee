//! Preset models, each from the fields of its real config.json.

use std::sync::OnceLock;

use crate::model::{decode_arch, Architecture};

/// A preset model.
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    /// Short id used in links and on the command line.
    pub id: &'static str,
    /// Display name (the Hugging Face repository).
    pub name: &'static str,
    /// The model family, for grouping in lists ("Llama 3", "Qwen3", ...).
    pub family: &'static str,
    /// The architecture in the link's form (`encode_arch`), which the page reads without a JSON
    /// parser; a test checks it is [`Preset::config`] read by the engine.
    pub arch: &'static str,
}

impl Preset {
    /// The fields of its config.json that the engine reads (where `arch` comes from). A separate
    /// table, so a build that never asks (the page) leaves the JSON out.
    pub fn config(&self) -> &'static str {
        CONFIGS
            .iter()
            .find(|(id, _)| *id == self.id)
            .map(|(_, json)| *json)
            .expect("every preset has its config.json")
    }

    /// Whether the preset has an encoder, read from its link form without parsing it (the
    /// settings registry asks on every page edit).
    pub fn is_encoder_decoder(&self) -> bool {
        self.arch.split('_').any(|part| {
            part.strip_prefix("eL")
                .is_some_and(|n| n.starts_with(|c: char| c.is_ascii_digit()))
        })
    }

    /// The preset's architecture, parsed once.
    pub fn architecture(&self) -> Architecture {
        let idx = PRESETS
            .iter()
            .position(|p| p.id == self.id)
            .expect("preset from the list");
        parsed()[idx].clone()
    }
}

fn parsed() -> &'static Vec<Architecture> {
    static CELL: OnceLock<Vec<Architecture>> = OnceLock::new();
    CELL.get_or_init(|| {
        PRESETS
            .iter()
            .map(|p| {
                // the reason is left out of the message: formatting the error linked its `Debug`
                // into the page; `every_preset_decodes_…` in tests/engine/size.rs names it
                decode_arch(p.arch).unwrap_or_else(|_| panic!("preset {} does not decode", p.id))
            })
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
        id: "llama-2-7b",
        name: "meta-llama/Llama-2-7b-hf",
        family: "Llama 2",
        arch: "V32000_h4096_f11008_L32_H32_kv32_hd128_tie0_ctx4096",
    },
    Preset {
        id: "llama-2-13b",
        name: "meta-llama/Llama-2-13b-hf",
        family: "Llama 2",
        arch: "V32000_h5120_f13824_L40_H40_kv40_hd128_tie0_ctx4096",
    },
    Preset {
        id: "llama-2-70b",
        name: "meta-llama/Llama-2-70b-hf",
        family: "Llama 2",
        arch: "V32000_h8192_f28672_L80_H64_kv8_hd128_tie0_ctx4096",
    },
    Preset {
        id: "llama-3.2-1b",
        name: "meta-llama/Llama-3.2-1B",
        family: "Llama 3",
        arch: "V128256_h2048_f8192_L16_H32_kv8_hd64_tie1_ctx131072",
    },
    Preset {
        id: "llama-3.2-3b",
        name: "meta-llama/Llama-3.2-3B",
        family: "Llama 3",
        arch: "V128256_h3072_f8192_L28_H24_kv8_hd128_tie1_ctx131072",
    },
    Preset {
        id: "llama-3.1-8b",
        name: "meta-llama/Llama-3.1-8B",
        family: "Llama 3",
        arch: "V128256_h4096_f14336_L32_H32_kv8_hd128_tie0_ctx131072",
    },
    Preset {
        id: "llama-3.1-70b",
        name: "meta-llama/Llama-3.1-70B",
        family: "Llama 3",
        arch: "V128256_h8192_f28672_L80_H64_kv8_hd128_tie0_ctx131072",
    },
    Preset {
        id: "llama-3.3-70b",
        name: "meta-llama/Llama-3.3-70B-Instruct",
        family: "Llama 3",
        arch: "V128256_h8192_f28672_L80_H64_kv8_hd128_tie0_ctx131072",
    },
    Preset {
        id: "llama-3.1-405b",
        name: "meta-llama/Llama-3.1-405B",
        family: "Llama 3",
        arch: "V128256_h16384_f53248_L126_H128_kv8_hd128_tie0_ctx131072",
    },
    Preset {
        id: "mistral-7b",
        name: "mistralai/Mistral-7B-v0.3",
        family: "Mistral",
        arch: "V32768_h4096_f14336_L32_H32_kv8_hd128_tie0_ctx32768",
    },
    Preset {
        id: "mixtral-8x7b",
        name: "mistralai/Mixtral-8x7B-v0.1",
        family: "Mistral",
        arch: "V32000_h4096_f14336_L32_H32_kv8_hd128_tie0_ctx32768_E8_k2_ef14336_sf0_dl0",
    },
    Preset {
        id: "mixtral-8x22b",
        name: "mistralai/Mixtral-8x22B-v0.1",
        family: "Mistral",
        arch: "V32000_h6144_f16384_L56_H48_kv8_hd128_tie0_ctx65536_E8_k2_ef16384_sf0_dl0",
    },
    Preset {
        id: "qwen2.5-0.5b",
        name: "Qwen/Qwen2.5-0.5B",
        family: "Qwen2.5",
        arch: "V151936_h896_f4864_L24_H14_kv2_hd64_tie1_ctx32768_qb1",
    },
    Preset {
        id: "qwen2.5-1.5b",
        name: "Qwen/Qwen2.5-1.5B",
        family: "Qwen2.5",
        arch: "V151936_h1536_f8960_L28_H12_kv2_hd128_tie1_ctx131072_qb1",
    },
    Preset {
        id: "qwen2.5-3b",
        name: "Qwen/Qwen2.5-3B",
        family: "Qwen2.5",
        arch: "V151936_h2048_f11008_L36_H16_kv2_hd128_tie1_ctx32768_qb1",
    },
    Preset {
        id: "qwen2.5-7b",
        name: "Qwen/Qwen2.5-7B",
        family: "Qwen2.5",
        arch: "V152064_h3584_f18944_L28_H28_kv4_hd128_tie0_ctx131072_qb1",
    },
    Preset {
        id: "qwen2.5-14b",
        name: "Qwen/Qwen2.5-14B",
        family: "Qwen2.5",
        arch: "V152064_h5120_f13824_L48_H40_kv8_hd128_tie0_ctx131072_qb1",
    },
    Preset {
        id: "qwen2.5-32b",
        name: "Qwen/Qwen2.5-32B",
        family: "Qwen2.5",
        arch: "V152064_h5120_f27648_L64_H40_kv8_hd128_tie0_ctx131072_qb1",
    },
    Preset {
        id: "qwen2.5-72b",
        name: "Qwen/Qwen2.5-72B",
        family: "Qwen2.5",
        arch: "V152064_h8192_f29568_L80_H64_kv8_hd128_tie0_ctx131072_qb1",
    },
    Preset {
        id: "qwen3-0.6b",
        name: "Qwen/Qwen3-0.6B",
        family: "Qwen3",
        arch: "V151936_h1024_f3072_L28_H16_kv8_hd128_tie1_ctx40960_qkn1",
    },
    Preset {
        id: "qwen3-1.7b",
        name: "Qwen/Qwen3-1.7B",
        family: "Qwen3",
        arch: "V151936_h2048_f6144_L28_H16_kv8_hd128_tie1_ctx40960_qkn1",
    },
    Preset {
        id: "qwen3-4b",
        name: "Qwen/Qwen3-4B",
        family: "Qwen3",
        arch: "V151936_h2560_f9728_L36_H32_kv8_hd128_tie1_ctx40960_qkn1",
    },
    Preset {
        id: "qwen3-8b",
        name: "Qwen/Qwen3-8B",
        family: "Qwen3",
        arch: "V151936_h4096_f12288_L36_H32_kv8_hd128_tie0_ctx40960_qkn1",
    },
    Preset {
        id: "qwen3-14b",
        name: "Qwen/Qwen3-14B",
        family: "Qwen3",
        arch: "V151936_h5120_f17408_L40_H40_kv8_hd128_tie0_ctx40960_qkn1",
    },
    Preset {
        id: "qwen3-32b",
        name: "Qwen/Qwen3-32B",
        family: "Qwen3",
        arch: "V151936_h5120_f25600_L64_H64_kv8_hd128_tie0_ctx40960_qkn1",
    },
    Preset {
        id: "qwen3-30b-a3b",
        name: "Qwen/Qwen3-30B-A3B",
        family: "Qwen3",
        arch: "V151936_h2048_f6144_L48_H32_kv4_hd128_tie0_ctx40960_qkn1_E128_k8_ef768_sf0_dl0",
    },
    Preset {
        id: "qwen3-235b-a22b",
        name: "Qwen/Qwen3-235B-A22B",
        family: "Qwen3",
        arch: "V151936_h4096_f12288_L94_H64_kv4_hd128_tie0_ctx40960_qkn1_E128_k8_ef1536_sf0_dl0",
    },
    // transformers builds neither DeepSeek's multi-token-prediction layer (num_nextn_predict_layers)
    // nor counts the router's e_score_correction_bias (a buffer): 671.0B, not the ~685B on disk.
    Preset {
        id: "deepseek-v3",
        name: "deepseek-ai/DeepSeek-V3",
        family: "DeepSeek",
        arch: "V129280_h7168_f18432_L61_H128_kv128_hd192_tie0_ctx163840_E256_k8_ef2048_sf2048_dl3_qr1536_kvr512_rd64_nd128_vd128",
    },
    Preset {
        id: "deepseek-r1",
        name: "deepseek-ai/DeepSeek-R1",
        family: "DeepSeek",
        arch: "V129280_h7168_f18432_L61_H128_kv128_hd192_tie0_ctx163840_E256_k8_ef2048_sf2048_dl3_qr1536_kvr512_rd64_nd128_vd128",
    },
    Preset {
        id: "gemma-2-2b",
        name: "google/gemma-2-2b",
        family: "Gemma",
        arch: "V256000_h2304_f9216_L26_H8_kv4_hd256_tie1_ctx8192_npl4_sw4096_swl13",
    },
    Preset {
        id: "gemma-2-9b",
        name: "google/gemma-2-9b",
        family: "Gemma",
        arch: "V256000_h3584_f14336_L42_H16_kv8_hd256_tie1_ctx8192_npl4_sw4096_swl21",
    },
    Preset {
        id: "gemma-2-27b",
        name: "google/gemma-2-27b",
        family: "Gemma",
        arch: "V256000_h4608_f36864_L46_H32_kv16_hd128_tie1_ctx8192_npl4_sw4096_swl23",
    },
    Preset {
        id: "gemma-3-1b",
        name: "google/gemma-3-1b-pt",
        family: "Gemma",
        arch: "V262144_h1152_f6912_L26_H4_kv1_hd256_tie1_ctx32768_qkn1_npl4_sw512_swl22",
    },
    // Gemma 3 4B, 12B and 27B are multimodal: these presets hold the language model (the text_config,
    // with the fields transformers would default spelled out); a pasted config.json with its
    // vision_config also counts the SigLIP tower and projector (about 0.42B more).
    Preset {
        id: "gemma-3-4b",
        name: "google/gemma-3-4b-pt",
        family: "Gemma",
        arch: "V262208_h2560_f10240_L34_H8_kv4_hd256_tie1_ctx131072_qkn1_npl4_sw1024_swl29",
    },
    Preset {
        id: "gemma-3-12b",
        name: "google/gemma-3-12b-pt",
        family: "Gemma",
        arch: "V262208_h3840_f15360_L48_H16_kv8_hd256_tie1_ctx131072_qkn1_npl4_sw1024_swl40",
    },
    Preset {
        id: "gemma-3-27b",
        name: "google/gemma-3-27b-pt",
        family: "Gemma",
        arch: "V262208_h5376_f21504_L62_H32_kv16_hd128_tie1_ctx131072_qkn1_npl4_sw1024_swl52",
    },
    Preset {
        id: "phi-3-mini",
        name: "microsoft/Phi-3-mini-4k-instruct",
        family: "Phi",
        arch: "V32064_h3072_f8192_L32_H32_kv32_hd96_tie0_ctx4096_sw2047_swl32",
    },
    Preset {
        id: "phi-4",
        name: "microsoft/phi-4",
        family: "Phi",
        arch: "V100352_h5120_f17920_L40_H40_kv10_hd128_tie0_ctx16384",
    },
    Preset {
        id: "gpt-oss-20b",
        name: "openai/gpt-oss-20b",
        family: "gpt-oss",
        arch: "V201088_h2880_f2880_L24_H64_kv8_hd64_tie0_ctx131072_qb1_ob1_sink1_E32_k4_ef2880_sf0_dl0_eb1_rb1_sw128_swl12",
    },
    Preset {
        id: "gpt-oss-120b",
        name: "openai/gpt-oss-120b",
        family: "gpt-oss",
        arch: "V201088_h2880_f2880_L36_H64_kv8_hd64_tie0_ctx131072_qb1_ob1_sink1_E128_k4_ef2880_sf0_dl0_eb1_rb1_sw128_swl18",
    },
    Preset {
        id: "gpt-2",
        name: "openai-community/gpt2",
        family: "GPT-2",
        arch: "V50257_h768_f3072_L12_H12_kv12_hd64_tie1_ctx1024_plain1_ln1_qb1_ob1_mb1_drop1_pos1024",
    },
    Preset {
        id: "flan-t5-base",
        name: "google/flan-t5-base",
        family: "Flan-T5",
        arch: "V32128_h768_f2048_L12_H12_kv12_hd64_tie0_ctx512_npl3_eL12_eH12_ehd64_eff2048_sn1_rab32",
    },
    Preset {
        id: "flan-t5-large",
        name: "google/flan-t5-large",
        family: "Flan-T5",
        arch: "V32128_h1024_f2816_L24_H16_kv16_hd64_tie0_ctx512_npl3_eL24_eH16_ehd64_eff2816_sn1_rab32",
    },
    Preset {
        id: "flan-t5-xl",
        name: "google/flan-t5-xl",
        family: "Flan-T5",
        arch: "V32128_h2048_f5120_L24_H32_kv32_hd64_tie0_ctx512_npl3_eL24_eH32_ehd64_eff5120_sn1_rab32",
    },
    Preset {
        id: "bart-large",
        name: "facebook/bart-large",
        family: "BART",
        arch: "V50265_h1024_f4096_L12_H16_kv16_hd64_tie1_ctx1024_plain1_ln1_qb1_ob1_mb1_npl3_pos1026_eL12_eH16_ehd64_eff4096_sn1_epos1026_smax1024",
    },
    Preset {
        id: "whisper-large-v3",
        name: "openai/whisper-large-v3",
        family: "Whisper",
        arch: "V51866_h1280_f5120_L32_H20_kv20_hd64_tie1_ctx448_plain1_ln1_qb1_ob1_mb1_npl3_pos448_eL32_eH20_ehd64_eff5120_sn1_epos1500_smax1500_sfix1_mel128_nkb1",
    },
    Preset {
        id: "qwen3-next-80b-a3b",
        name: "Qwen/Qwen3-Next-80B-A3B-Instruct",
        family: "Qwen3-Next",
        arch: "V151936_h2048_f5120_L48_H16_kv2_hd256_tie0_ctx262144_qkn1_E512_k10_ef512_sf512_dl0_sg1_rm2_rL36_aL12_fL48_rH32_rhd128_rg16_rs128_rk4_ri4096_rdt0_ga1",
    },
    Preset {
        id: "nemotron-nano-9b-v2",
        name: "nvidia/NVIDIA-Nemotron-Nano-9B-v2",
        family: "Nemotron-H",
        arch: "V131072_h4480_f15680_L56_H40_kv8_hd128_tie0_ctx131072_plain1_npl1_rm0_rL27_aL4_fL25_rH128_rhd80_rg8_rs128_rk4_ri10240_rdt0_rcb1",
    },
    Preset {
        id: "granite-4.0-h-tiny",
        name: "ibm-granite/granite-4.0-h-tiny",
        family: "Granite 4.0",
        arch: "V100352_h1536_f512_L40_H12_kv4_hd128_tie1_ctx131072_E64_k6_ef512_sf1024_dl0_rm0_rL36_aL4_fL40_rH48_rhd64_rg1_rs128_rk4_ri3072_rdt0_rcb1",
    },
    Preset {
        id: "jamba-mini-1.7",
        name: "ai21labs/AI21-Jamba-Mini-1.7",
        family: "Jamba",
        arch: "V65536_h4096_f14336_L32_H32_kv8_hd128_tie0_ctx262144_E16_k2_ef14336_sf0_dl16_rm1_rL28_aL4_fL32_rH0_rhd0_rg0_rs16_rk4_ri8192_rdt256_rcb1",
    },
    Preset {
        id: "lfm2-1.2b",
        name: "LiquidAI/LFM2-1.2B",
        family: "LFM2",
        arch: "V65536_h2048_f8192_L16_H32_kv8_hd64_tie1_ctx128000_qkn1_rm3_rL10_aL6_fL16_rH0_rhd0_rg0_rs0_rk3_ri2048_rdt0",
    },
];

/// Each preset's config.json fields, by id.
const CONFIGS: &[(&str, &str)] = &[
    (
        "llama-2-7b",
        r#"{"model_type":"llama","vocab_size":32000,"hidden_size":4096,"intermediate_size":11008,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":32,"tie_word_embeddings":false,"max_position_embeddings":4096}"#,
    ),
    (
        "llama-2-13b",
        r#"{"model_type":"llama","vocab_size":32000,"hidden_size":5120,"intermediate_size":13824,"num_hidden_layers":40,"num_attention_heads":40,"num_key_value_heads":40,"tie_word_embeddings":false,"max_position_embeddings":4096}"#,
    ),
    (
        "llama-2-70b",
        r#"{"model_type":"llama","vocab_size":32000,"hidden_size":8192,"intermediate_size":28672,"num_hidden_layers":80,"num_attention_heads":64,"num_key_value_heads":8,"tie_word_embeddings":false,"max_position_embeddings":4096}"#,
    ),
    (
        "llama-3.2-1b",
        r#"{"model_type":"llama","vocab_size":128256,"hidden_size":2048,"intermediate_size":8192,"num_hidden_layers":16,"num_attention_heads":32,"num_key_value_heads":8,"head_dim":64,"tie_word_embeddings":true,"max_position_embeddings":131072}"#,
    ),
    (
        "llama-3.2-3b",
        r#"{"model_type":"llama","vocab_size":128256,"hidden_size":3072,"intermediate_size":8192,"num_hidden_layers":28,"num_attention_heads":24,"num_key_value_heads":8,"head_dim":128,"tie_word_embeddings":true,"max_position_embeddings":131072}"#,
    ),
    (
        "llama-3.1-8b",
        r#"{"model_type":"llama","vocab_size":128256,"hidden_size":4096,"intermediate_size":14336,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,"head_dim":128,"tie_word_embeddings":false,"max_position_embeddings":131072}"#,
    ),
    (
        "llama-3.1-70b",
        r#"{"model_type":"llama","vocab_size":128256,"hidden_size":8192,"intermediate_size":28672,"num_hidden_layers":80,"num_attention_heads":64,"num_key_value_heads":8,"head_dim":128,"tie_word_embeddings":false,"max_position_embeddings":131072}"#,
    ),
    (
        "llama-3.3-70b",
        r#"{"model_type":"llama","vocab_size":128256,"hidden_size":8192,"intermediate_size":28672,"num_hidden_layers":80,"num_attention_heads":64,"num_key_value_heads":8,"head_dim":128,"tie_word_embeddings":false,"max_position_embeddings":131072}"#,
    ),
    (
        "llama-3.1-405b",
        r#"{"model_type":"llama","vocab_size":128256,"hidden_size":16384,"intermediate_size":53248,"num_hidden_layers":126,"num_attention_heads":128,"num_key_value_heads":8,"head_dim":128,"tie_word_embeddings":false,"max_position_embeddings":131072}"#,
    ),
    (
        "mistral-7b",
        r#"{"model_type":"mistral","vocab_size":32768,"hidden_size":4096,"intermediate_size":14336,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,"sliding_window":null,"tie_word_embeddings":false,"max_position_embeddings":32768}"#,
    ),
    (
        "mixtral-8x7b",
        r#"{"model_type":"mixtral","vocab_size":32000,"hidden_size":4096,"intermediate_size":14336,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,"num_local_experts":8,"num_experts_per_tok":2,"sliding_window":null,"tie_word_embeddings":false,"max_position_embeddings":32768}"#,
    ),
    (
        "mixtral-8x22b",
        r#"{"model_type":"mixtral","vocab_size":32000,"hidden_size":6144,"intermediate_size":16384,"num_hidden_layers":56,"num_attention_heads":48,"num_key_value_heads":8,"num_local_experts":8,"num_experts_per_tok":2,"sliding_window":null,"tie_word_embeddings":false,"max_position_embeddings":65536}"#,
    ),
    (
        "qwen2.5-0.5b",
        r#"{"model_type":"qwen2","vocab_size":151936,"hidden_size":896,"intermediate_size":4864,"num_hidden_layers":24,"num_attention_heads":14,"num_key_value_heads":2,"tie_word_embeddings":true,"max_position_embeddings":32768,"use_sliding_window":false}"#,
    ),
    (
        "qwen2.5-1.5b",
        r#"{"model_type":"qwen2","vocab_size":151936,"hidden_size":1536,"intermediate_size":8960,"num_hidden_layers":28,"num_attention_heads":12,"num_key_value_heads":2,"tie_word_embeddings":true,"max_position_embeddings":131072,"use_sliding_window":false}"#,
    ),
    (
        "qwen2.5-3b",
        r#"{"model_type":"qwen2","vocab_size":151936,"hidden_size":2048,"intermediate_size":11008,"num_hidden_layers":36,"num_attention_heads":16,"num_key_value_heads":2,"tie_word_embeddings":true,"max_position_embeddings":32768,"use_sliding_window":false}"#,
    ),
    (
        "qwen2.5-7b",
        r#"{"model_type":"qwen2","vocab_size":152064,"hidden_size":3584,"intermediate_size":18944,"num_hidden_layers":28,"num_attention_heads":28,"num_key_value_heads":4,"tie_word_embeddings":false,"max_position_embeddings":131072,"use_sliding_window":false}"#,
    ),
    (
        "qwen2.5-14b",
        r#"{"model_type":"qwen2","vocab_size":152064,"hidden_size":5120,"intermediate_size":13824,"num_hidden_layers":48,"num_attention_heads":40,"num_key_value_heads":8,"tie_word_embeddings":false,"max_position_embeddings":131072,"use_sliding_window":false}"#,
    ),
    (
        "qwen2.5-32b",
        r#"{"model_type":"qwen2","vocab_size":152064,"hidden_size":5120,"intermediate_size":27648,"num_hidden_layers":64,"num_attention_heads":40,"num_key_value_heads":8,"tie_word_embeddings":false,"max_position_embeddings":131072,"use_sliding_window":false}"#,
    ),
    (
        "qwen2.5-72b",
        r#"{"model_type":"qwen2","vocab_size":152064,"hidden_size":8192,"intermediate_size":29568,"num_hidden_layers":80,"num_attention_heads":64,"num_key_value_heads":8,"tie_word_embeddings":false,"max_position_embeddings":131072,"use_sliding_window":false}"#,
    ),
    (
        "qwen3-0.6b",
        r#"{"model_type":"qwen3","vocab_size":151936,"hidden_size":1024,"intermediate_size":3072,"num_hidden_layers":28,"num_attention_heads":16,"num_key_value_heads":8,"head_dim":128,"attention_bias":false,"tie_word_embeddings":true,"max_position_embeddings":40960,"sliding_window":null,"use_sliding_window":false}"#,
    ),
    (
        "qwen3-1.7b",
        r#"{"model_type":"qwen3","vocab_size":151936,"hidden_size":2048,"intermediate_size":6144,"num_hidden_layers":28,"num_attention_heads":16,"num_key_value_heads":8,"head_dim":128,"attention_bias":false,"tie_word_embeddings":true,"max_position_embeddings":40960,"sliding_window":null,"use_sliding_window":false}"#,
    ),
    (
        "qwen3-4b",
        r#"{"model_type":"qwen3","vocab_size":151936,"hidden_size":2560,"intermediate_size":9728,"num_hidden_layers":36,"num_attention_heads":32,"num_key_value_heads":8,"head_dim":128,"attention_bias":false,"tie_word_embeddings":true,"max_position_embeddings":40960,"sliding_window":null,"use_sliding_window":false}"#,
    ),
    (
        "qwen3-8b",
        r#"{"model_type":"qwen3","vocab_size":151936,"hidden_size":4096,"intermediate_size":12288,"num_hidden_layers":36,"num_attention_heads":32,"num_key_value_heads":8,"head_dim":128,"attention_bias":false,"tie_word_embeddings":false,"max_position_embeddings":40960,"sliding_window":null,"use_sliding_window":false}"#,
    ),
    (
        "qwen3-14b",
        r#"{"model_type":"qwen3","vocab_size":151936,"hidden_size":5120,"intermediate_size":17408,"num_hidden_layers":40,"num_attention_heads":40,"num_key_value_heads":8,"head_dim":128,"attention_bias":false,"tie_word_embeddings":false,"max_position_embeddings":40960,"sliding_window":null,"use_sliding_window":false}"#,
    ),
    (
        "qwen3-32b",
        r#"{"model_type":"qwen3","vocab_size":151936,"hidden_size":5120,"intermediate_size":25600,"num_hidden_layers":64,"num_attention_heads":64,"num_key_value_heads":8,"head_dim":128,"attention_bias":false,"tie_word_embeddings":false,"max_position_embeddings":40960,"sliding_window":null,"use_sliding_window":false}"#,
    ),
    (
        "qwen3-30b-a3b",
        r#"{"model_type":"qwen3_moe","vocab_size":151936,"hidden_size":2048,"intermediate_size":6144,"moe_intermediate_size":768,"num_hidden_layers":48,"num_attention_heads":32,"num_key_value_heads":4,"head_dim":128,"attention_bias":false,"num_experts":128,"num_experts_per_tok":8,"decoder_sparse_step":1,"mlp_only_layers":[],"norm_topk_prob":true,"tie_word_embeddings":false,"max_position_embeddings":40960,"sliding_window":null,"use_sliding_window":false}"#,
    ),
    (
        "qwen3-235b-a22b",
        r#"{"model_type":"qwen3_moe","vocab_size":151936,"hidden_size":4096,"intermediate_size":12288,"moe_intermediate_size":1536,"num_hidden_layers":94,"num_attention_heads":64,"num_key_value_heads":4,"head_dim":128,"attention_bias":false,"num_experts":128,"num_experts_per_tok":8,"decoder_sparse_step":1,"mlp_only_layers":[],"norm_topk_prob":true,"tie_word_embeddings":false,"max_position_embeddings":40960,"sliding_window":null,"use_sliding_window":false}"#,
    ),
    (
        "deepseek-v3",
        r#"{"model_type":"deepseek_v3","vocab_size":129280,"hidden_size":7168,"intermediate_size":18432,"moe_intermediate_size":2048,"num_hidden_layers":61,"num_attention_heads":128,"num_key_value_heads":128,"n_routed_experts":256,"n_shared_experts":1,"num_experts_per_tok":8,"first_k_dense_replace":3,"moe_layer_freq":1,"n_group":8,"topk_group":4,"q_lora_rank":1536,"kv_lora_rank":512,"qk_rope_head_dim":64,"qk_nope_head_dim":128,"v_head_dim":128,"num_nextn_predict_layers":1,"attention_bias":false,"tie_word_embeddings":false,"max_position_embeddings":163840}"#,
    ),
    (
        "deepseek-r1",
        r#"{"model_type":"deepseek_v3","vocab_size":129280,"hidden_size":7168,"intermediate_size":18432,"moe_intermediate_size":2048,"num_hidden_layers":61,"num_attention_heads":128,"num_key_value_heads":128,"n_routed_experts":256,"n_shared_experts":1,"num_experts_per_tok":8,"first_k_dense_replace":3,"moe_layer_freq":1,"n_group":8,"topk_group":4,"q_lora_rank":1536,"kv_lora_rank":512,"qk_rope_head_dim":64,"qk_nope_head_dim":128,"v_head_dim":128,"num_nextn_predict_layers":1,"attention_bias":false,"tie_word_embeddings":false,"max_position_embeddings":163840}"#,
    ),
    (
        "gemma-2-2b",
        r#"{"model_type":"gemma2","vocab_size":256000,"hidden_size":2304,"intermediate_size":9216,"num_hidden_layers":26,"num_attention_heads":8,"num_key_value_heads":4,"head_dim":256,"max_position_embeddings":8192,"sliding_window":4096}"#,
    ),
    (
        "gemma-2-9b",
        r#"{"model_type":"gemma2","vocab_size":256000,"hidden_size":3584,"intermediate_size":14336,"num_hidden_layers":42,"num_attention_heads":16,"num_key_value_heads":8,"head_dim":256,"max_position_embeddings":8192,"sliding_window":4096}"#,
    ),
    (
        "gemma-2-27b",
        r#"{"model_type":"gemma2","vocab_size":256000,"hidden_size":4608,"intermediate_size":36864,"num_hidden_layers":46,"num_attention_heads":32,"num_key_value_heads":16,"head_dim":128,"max_position_embeddings":8192,"sliding_window":4096}"#,
    ),
    (
        "gemma-3-1b",
        r#"{"model_type":"gemma3_text","vocab_size":262144,"hidden_size":1152,"intermediate_size":6912,"num_hidden_layers":26,"num_attention_heads":4,"num_key_value_heads":1,"head_dim":256,"max_position_embeddings":32768,"sliding_window":512,"sliding_window_pattern":6}"#,
    ),
    (
        "gemma-3-4b",
        r#"{"model_type":"gemma3","text_config":{"model_type":"gemma3_text","vocab_size":262208,"hidden_size":2560,"intermediate_size":10240,"num_hidden_layers":34,"num_attention_heads":8,"num_key_value_heads":4,"head_dim":256,"max_position_embeddings":131072,"sliding_window":1024,"sliding_window_pattern":6}}"#,
    ),
    (
        "gemma-3-12b",
        r#"{"model_type":"gemma3","text_config":{"model_type":"gemma3_text","vocab_size":262208,"hidden_size":3840,"intermediate_size":15360,"num_hidden_layers":48,"num_attention_heads":16,"num_key_value_heads":8,"head_dim":256,"max_position_embeddings":131072,"sliding_window":1024,"sliding_window_pattern":6}}"#,
    ),
    (
        "gemma-3-27b",
        r#"{"model_type":"gemma3","text_config":{"model_type":"gemma3_text","vocab_size":262208,"hidden_size":5376,"intermediate_size":21504,"num_hidden_layers":62,"num_attention_heads":32,"num_key_value_heads":16,"head_dim":128,"max_position_embeddings":131072,"sliding_window":1024,"sliding_window_pattern":6}}"#,
    ),
    (
        "phi-3-mini",
        r#"{"model_type":"phi3","vocab_size":32064,"hidden_size":3072,"intermediate_size":8192,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":32,"tie_word_embeddings":false,"max_position_embeddings":4096,"sliding_window":2047}"#,
    ),
    (
        "phi-4",
        r#"{"model_type":"phi3","vocab_size":100352,"hidden_size":5120,"intermediate_size":17920,"num_hidden_layers":40,"num_attention_heads":40,"num_key_value_heads":10,"tie_word_embeddings":false,"max_position_embeddings":16384,"sliding_window":null}"#,
    ),
    (
        "gpt-oss-20b",
        r#"{"model_type":"gpt_oss","vocab_size":201088,"hidden_size":2880,"intermediate_size":2880,"num_hidden_layers":24,"num_attention_heads":64,"num_key_value_heads":8,"head_dim":64,"attention_bias":true,"num_local_experts":32,"num_experts_per_tok":4,"experts_per_token":4,"tie_word_embeddings":false,"max_position_embeddings":131072,"sliding_window":128,"layer_types":["sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention"]}"#,
    ),
    (
        "gpt-oss-120b",
        r#"{"model_type":"gpt_oss","vocab_size":201088,"hidden_size":2880,"intermediate_size":2880,"num_hidden_layers":36,"num_attention_heads":64,"num_key_value_heads":8,"head_dim":64,"attention_bias":true,"num_local_experts":128,"num_experts_per_tok":4,"experts_per_token":4,"tie_word_embeddings":false,"max_position_embeddings":131072,"sliding_window":128,"layer_types":["sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention"]}"#,
    ),
    (
        "gpt-2",
        r#"{"model_type":"gpt2","vocab_size":50257,"n_embd":768,"n_layer":12,"n_head":12,"n_positions":1024,"n_ctx":1024,"attn_pdrop":0.1,"resid_pdrop":0.1,"embd_pdrop":0.1}"#,
    ),
    (
        "flan-t5-base",
        r#"{"model_type":"t5","vocab_size":32128,"d_model":768,"d_kv":64,"d_ff":2048,"num_layers":12,"num_decoder_layers":12,"num_heads":12,"feed_forward_proj":"gated-gelu","relative_attention_num_buckets":32,"n_positions":512,"tie_word_embeddings":false}"#,
    ),
    (
        "flan-t5-large",
        r#"{"model_type":"t5","vocab_size":32128,"d_model":1024,"d_kv":64,"d_ff":2816,"num_layers":24,"num_decoder_layers":24,"num_heads":16,"feed_forward_proj":"gated-gelu","relative_attention_num_buckets":32,"n_positions":512,"tie_word_embeddings":false}"#,
    ),
    (
        "flan-t5-xl",
        r#"{"model_type":"t5","vocab_size":32128,"d_model":2048,"d_kv":64,"d_ff":5120,"num_layers":24,"num_decoder_layers":24,"num_heads":32,"feed_forward_proj":"gated-gelu","relative_attention_num_buckets":32,"n_positions":512,"tie_word_embeddings":false}"#,
    ),
    (
        "bart-large",
        r#"{"model_type":"bart","vocab_size":50265,"d_model":1024,"encoder_layers":12,"decoder_layers":12,"encoder_attention_heads":16,"decoder_attention_heads":16,"encoder_ffn_dim":4096,"decoder_ffn_dim":4096,"max_position_embeddings":1024,"activation_function":"gelu"}"#,
    ),
    (
        "whisper-large-v3",
        r#"{"model_type":"whisper","vocab_size":51866,"d_model":1280,"encoder_layers":32,"decoder_layers":32,"encoder_attention_heads":20,"decoder_attention_heads":20,"encoder_ffn_dim":5120,"decoder_ffn_dim":5120,"num_mel_bins":128,"max_source_positions":1500,"max_target_positions":448}"#,
    ),
    (
        "qwen3-next-80b-a3b",
        r#"{"model_type":"qwen3_next","vocab_size":151936,"hidden_size":2048,"intermediate_size":5120,"num_hidden_layers":48,"num_attention_heads":16,"num_key_value_heads":2,"head_dim":256,"tie_word_embeddings":false,"max_position_embeddings":262144,"num_experts":512,"num_experts_per_tok":10,"moe_intermediate_size":512,"shared_expert_intermediate_size":512,"mlp_only_layers":[],"full_attention_interval":4,"linear_num_value_heads":32,"linear_value_head_dim":128,"linear_num_key_heads":16,"linear_key_head_dim":128,"linear_conv_kernel_dim":4}"#,
    ),
    (
        "nemotron-nano-9b-v2",
        r#"{"model_type":"nemotron_h","vocab_size":131072,"hidden_size":4480,"intermediate_size":15680,"num_hidden_layers":56,"num_attention_heads":40,"num_key_value_heads":8,"head_dim":128,"tie_word_embeddings":false,"max_position_embeddings":131072,"hybrid_override_pattern":"M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-","mamba_num_heads":128,"mamba_head_dim":80,"n_groups":8,"ssm_state_size":128,"conv_kernel":4,"use_conv_bias":true,"use_bias":false}"#,
    ),
    (
        "granite-4.0-h-tiny",
        r#"{"model_type":"granitemoehybrid","vocab_size":100352,"hidden_size":1536,"intermediate_size":512,"num_hidden_layers":40,"num_attention_heads":12,"num_key_value_heads":4,"tie_word_embeddings":true,"max_position_embeddings":131072,"num_local_experts":64,"num_experts_per_tok":6,"shared_intermediate_size":1024,"layer_types":["mamba","mamba","mamba","mamba","mamba","attention","mamba","mamba","mamba","mamba","mamba","mamba","mamba","mamba","mamba","attention","mamba","mamba","mamba","mamba","mamba","mamba","mamba","mamba","mamba","attention","mamba","mamba","mamba","mamba","mamba","mamba","mamba","mamba","mamba","attention","mamba","mamba","mamba","mamba"],"mamba_n_heads":48,"mamba_d_head":64,"mamba_n_groups":1,"mamba_d_state":128,"mamba_d_conv":4,"mamba_expand":2,"mamba_conv_bias":true,"mamba_proj_bias":false}"#,
    ),
    (
        "jamba-mini-1.7",
        r#"{"model_type":"jamba","vocab_size":65536,"hidden_size":4096,"intermediate_size":14336,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,"tie_word_embeddings":false,"max_position_embeddings":262144,"num_experts":16,"num_experts_per_tok":2,"attn_layer_period":8,"attn_layer_offset":4,"expert_layer_period":2,"expert_layer_offset":1,"mamba_d_state":16,"mamba_d_conv":4,"mamba_expand":2,"mamba_dt_rank":256,"mamba_conv_bias":true,"mamba_proj_bias":false}"#,
    ),
    (
        "lfm2-1.2b",
        r#"{"model_type":"lfm2","vocab_size":65536,"hidden_size":2048,"block_ff_dim":12288,"block_auto_adjust_ff_dim":true,"block_ffn_dim_multiplier":1.0,"block_multiple_of":256,"num_hidden_layers":16,"num_attention_heads":32,"num_key_value_heads":8,"tie_embedding":true,"max_position_embeddings":128000,"layer_types":["conv","conv","full_attention","conv","conv","full_attention","conv","conv","full_attention","conv","full_attention","conv","full_attention","conv","full_attention","conv"],"conv_L_cache":3,"conv_bias":false}"#,
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config;
    use crate::model::encode_arch;

    #[test]
    fn every_presets_link_form_is_its_config_json_as_the_engine_reads_it() {
        let wrong: Vec<String> = all()
            .iter()
            .filter_map(|p| {
                let read =
                    config::parse_config(p.config()).unwrap_or_else(|e| panic!("{}: {e}", p.id));
                (decode_arch(p.arch).as_ref() != Ok(&read))
                    .then(|| format!("{}: arch: \"{}\"", p.id, encode_arch(&read)))
            })
            .collect();
        assert!(wrong.is_empty(), "write these:\n{}", wrong.join("\n"));
        assert_eq!(
            CONFIGS.len(),
            all().len(),
            "one config.json per preset, none left over"
        );
    }

    #[track_caller]
    fn total(id: &str) -> u64 {
        find(id)
            .unwrap_or_else(|| panic!("no preset {id}"))
            .architecture()
            .params()
            .total()
    }

    #[test]
    fn a_preset_says_it_has_an_encoder_exactly_when_its_architecture_does() {
        for p in all() {
            assert_eq!(
                p.is_encoder_decoder(),
                p.architecture().encoder.is_some(),
                "{}",
                p.id
            );
        }
        assert!(find("flan-t5-xl").unwrap().is_encoder_decoder());
    }

    #[test]
    fn every_preset_parses_and_has_a_unique_id() {
        for p in all() {
            p.architecture().validate().unwrap();
            assert_eq!(all().iter().filter(|q| q.id == p.id).count(), 1, "{}", p.id);
        }
    }

    #[test]
    fn ids_that_links_and_defaults_use_are_still_there() {
        for id in ["llama-3.1-8b", "llama-2-7b", "llama-3.2-3b"] {
            assert!(find(id).is_some(), "{id}");
        }
        assert_eq!(find("LLAMA-3.1-8B").map(|p| p.id), Some("llama-3.1-8b"));
    }

    #[test]
    fn presets_of_one_family_stand_together() {
        let mut seen: Vec<&str> = Vec::new();
        for p in all() {
            if seen.last() != Some(&p.family) {
                assert!(
                    !seen.contains(&p.family),
                    "{} is apart from the rest of {}",
                    p.id,
                    p.family
                );
                seen.push(p.family);
            }
        }
    }

    /// `model.parameters()` summed over the model transformers 5.24 builds on the meta device from
    /// the same config fields (scripts/param_counts.py --rust prints these rows). Gemma 3 counts its
    /// language model only; DeepSeek's multi-token-prediction layer is not part of the model.
    #[test]
    fn every_preset_matches_the_parameter_count_transformers_reports() {
        let expected: &[(&str, u64)] = &[
            ("llama-2-7b", 6_738_415_616),
            ("llama-2-13b", 13_015_864_320),
            ("llama-2-70b", 68_976_648_192),
            ("llama-3.2-1b", 1_235_814_400),
            ("llama-3.2-3b", 3_212_749_824),
            ("llama-3.1-8b", 8_030_261_248),
            ("llama-3.1-70b", 70_553_706_496),
            ("llama-3.3-70b", 70_553_706_496),
            ("llama-3.1-405b", 405_853_388_800),
            ("mistral-7b", 7_248_023_552),
            ("mixtral-8x7b", 46_702_792_704),
            ("mixtral-8x22b", 140_620_634_112),
            ("qwen2.5-0.5b", 494_032_768),
            ("qwen2.5-1.5b", 1_543_714_304),
            ("qwen2.5-3b", 3_085_938_688),
            ("qwen2.5-7b", 7_615_616_512),
            ("qwen2.5-14b", 14_770_033_664),
            ("qwen2.5-32b", 32_763_876_352),
            ("qwen2.5-72b", 72_706_203_648),
            ("qwen3-0.6b", 596_049_920),
            ("qwen3-1.7b", 1_720_574_976),
            ("qwen3-4b", 4_022_468_096),
            ("qwen3-8b", 8_190_735_360),
            ("qwen3-14b", 14_768_307_200),
            ("qwen3-32b", 32_762_123_264),
            ("qwen3-30b-a3b", 30_532_122_624),
            ("qwen3-235b-a22b", 235_093_634_560),
            ("deepseek-v3", 671_026_404_352),
            ("deepseek-r1", 671_026_404_352),
            ("gemma-2-2b", 2_614_341_888),
            ("gemma-2-9b", 9_241_705_984),
            ("gemma-2-27b", 27_227_128_320),
            ("gemma-3-1b", 999_885_952),
            ("gemma-3-4b", 3_880_263_168),
            ("gemma-3-12b", 11_766_034_176),
            ("gemma-3-27b", 27_009_346_304),
            ("phi-3-mini", 3_821_079_552),
            ("phi-4", 14_659_507_200),
            ("gpt-oss-20b", 20_914_757_184),
            ("gpt-oss-120b", 116_829_156_672),
            ("gpt-2", 124_439_808),
            ("flan-t5-base", 247_577_856),
            ("flan-t5-large", 783_150_080),
            ("flan-t5-xl", 2_849_757_184),
            ("bart-large", 406_291_456),
            ("whisper-large-v3", 1_543_490_560),
            // the hybrids' rows are counted by hand from transformers' modeling files
            // (memory/hybrid_tests.rs shows the arithmetic); the script prints them where it can run
            ("qwen3-next-80b-a3b", 79_674_391_296),
            ("nemotron-nano-9b-v2", 8_888_227_328),
            ("granite-4.0-h-tiny", 6_939_037_248),
            ("jamba-mini-1.7", 51_570_323_328),
            ("lfm2-1.2b", 1_170_340_608),
        ];
        assert_eq!(expected.len(), all().len(), "one row per preset");
        let wrong: Vec<String> = expected
            .iter()
            .filter(|(id, n)| total(id) != *n)
            .map(|(id, n)| format!("{id}: engine {} vs transformers {n}", total(id)))
            .collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn llama_2_7b_has_its_published_6_738_415_616_parameters() {
        assert_eq!(total("llama-2-7b"), 6_738_415_616);
    }

    #[test]
    fn llama_3_1_8b_has_its_published_8_030_261_248_parameters() {
        assert_eq!(total("llama-3.1-8b"), 8_030_261_248);
    }

    #[test]
    fn llama_3_1_405b_has_its_published_405_853_388_800_parameters() {
        assert_eq!(total("llama-3.1-405b"), 405_853_388_800);
    }

    #[test]
    fn mistral_7b_v0_1_has_its_published_7_241_732_096_parameters() {
        // v0.1 has a 32,000-token vocabulary; the v0.3 preset's 32,768 adds 2 x 768 x 4,096
        let v01 = r#"{"model_type":"mistral","vocab_size":32000,"hidden_size":4096,"intermediate_size":14336,
            "num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,"sliding_window":4096,
            "tie_word_embeddings":false,"max_position_embeddings":32768}"#;
        assert_eq!(
            config::parse_config(v01).unwrap().params().total(),
            7_241_732_096
        );
        assert_eq!(total("mistral-7b"), 7_241_732_096 + 2 * 768 * 4_096);
    }

    #[test]
    fn mixtral_8x7b_has_46_702_792_704_parameters_of_which_12_879_925_248_are_active() {
        let a = find("mixtral-8x7b").unwrap().architecture();
        assert_eq!(a.params().total(), 46_702_792_704);
        assert_eq!(a.active_params(), 12_879_925_248);
    }

    #[test]
    fn qwen2_5_7b_has_its_published_7_615_616_512_parameters() {
        assert_eq!(total("qwen2.5-7b"), 7_615_616_512);
    }

    #[test]
    fn qwen3_8b_has_its_published_8_190_735_360_parameters() {
        assert_eq!(total("qwen3-8b"), 8_190_735_360);
    }

    #[test]
    fn gemma_2_9b_has_its_published_9_241_705_984_parameters() {
        assert_eq!(total("gemma-2-9b"), 9_241_705_984);
    }

    #[test]
    fn phi_3_mini_has_its_published_3_821_079_552_parameters() {
        assert_eq!(total("phi-3-mini"), 3_821_079_552);
    }

    #[test]
    fn gpt_2_has_its_published_124_439_808_parameters() {
        assert_eq!(total("gpt-2"), 124_439_808);
    }

    #[test]
    fn deepseek_v3_has_671_billion_parameters_and_37_billion_active() {
        let a = find("deepseek-v3").unwrap().architecture();
        assert_eq!(a.params().total(), 671_026_404_352);
        let active = a.active_params() as f64 / 1e9;
        assert!((36.5..38.0).contains(&active), "{active}");
    }

    #[test]
    fn gpt_oss_has_its_published_20_9_and_116_8_billion_parameters() {
        assert_eq!(total("gpt-oss-20b"), 20_914_757_184);
        assert_eq!(total("gpt-oss-120b"), 116_829_156_672);
    }
}
