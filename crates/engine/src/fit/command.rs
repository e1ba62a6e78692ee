//! The command an operator would run to serve the scenario, as (flag, value) pairs.

use crate::dtype::{KvDtype, WeightFormat};
use crate::memory::ServingFit;
use crate::model::presets;
pub use crate::scenario::Server;
use crate::scenario::{CudaGraphs, SpecMethod};
use crate::scenario::{ModelChoice, Scenario};

/// A launch command: the program's words, then each flag (with its `--`) and value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServeCommand {
    pub program: &'static [&'static str],
    /// The model, as the first positional argument (vLLM) or `--model-path` (SGLang); a switch
    /// (`--enable-lora`) has an empty value.
    pub flags: Vec<(&'static str, String)>,
}

impl ServeCommand {
    /// The command on one line, each value quoted for a POSIX shell when it needs it.
    pub fn line(&self) -> String {
        let mut words: Vec<String> = self.program.iter().map(|w| w.to_string()).collect();
        for (flag, value) in &self.flags {
            if !flag.is_empty() {
                words.push(flag.to_string());
                if value.is_empty() {
                    continue;
                }
            }
            words.push(quoted(value));
        }
        words.join(" ")
    }
}

fn quoted(value: &str) -> String {
    let plain = |c: char| {
        c.is_ascii_alphanumeric()
            || matches!(c, '-' | '_' | '.' | '/' | ':' | '=' | '@' | ',' | '+')
    };
    if !value.is_empty() && value.chars().all(plain) {
        value.to_string()
    } else {
        format!("'{}'", value.replace('\'', r"'\''"))
    }
}

/// The model as the server loads it: the preset's Hugging Face repository, the pasted config's
/// name, or a placeholder.
fn model_path(s: &Scenario) -> String {
    match &s.model {
        ModelChoice::Params(_) => "<model>".into(),
        m => m.name(),
    }
}

/// The server's name for a KV-cache dtype; `None` when it has none (it keeps 16-bit).
fn kv_dtype(server: Server, kv: KvDtype) -> Option<&'static str> {
    match (server, kv) {
        (_, KvDtype::Bf16) => Some("auto"),
        (Server::Vllm, KvDtype::Fp8) => Some("fp8"),
        (Server::Sglang, KvDtype::Fp8) => Some("fp8_e4m3"),
        _ => None,
    }
}

/// The server's `--quantization` for a weight format; `None` for plain weights.
fn quantization(w: WeightFormat) -> Option<&'static str> {
    match w {
        WeightFormat::Fp32 | WeightFormat::Bf16 => None,
        WeightFormat::Fp8 => Some("fp8"),
        WeightFormat::Awq4 => Some("awq"),
        WeightFormat::Gptq8 | WeightFormat::Gptq4 | WeightFormat::Gptq3 => Some("gptq"),
        WeightFormat::Mxfp4 => Some("mxfp4"),
        WeightFormat::Nvfp4 => Some("modelopt_fp4"),
        WeightFormat::Int8
        | WeightFormat::Nf4
        | WeightFormat::Nf4Dq
        | WeightFormat::Fp4
        | WeightFormat::Fp4Dq => Some("bitsandbytes"),
        _ => Some("gguf"),
    }
}

/// The command that starts `server` with the scenario's settings: tensor parallel, max_model_len,
/// gpu_memory_utilization (SGLang: its mem_fraction_static, the user's or its default for the
/// GPU), concurrency, KV dtype, block size.
pub fn serve_command(s: &Scenario, server: Server) -> ServeCommand {
    let mut flags: Vec<(&'static str, String)> = Vec::new();
    match server {
        Server::Vllm => {
            flags.push(("", model_path(s)));
            flags.push(("--tensor-parallel-size", s.tp.to_string()));
            if s.pp > 1 {
                flags.push(("--pipeline-parallel-size", s.pp.to_string()));
            }
            if s.expert_parallel {
                // the data-parallel ranks each run `tp` GPUs; the experts span all of them
                let dp = s.attention_ranks();
                if dp > 1 {
                    flags.push(("--data-parallel-size", dp.to_string()));
                }
                flags.push(("--enable-expert-parallel", String::new()));
            }
            flags.push(("--max-model-len", s.max_model_len.to_string()));
            let fraction = crate::decimal::decimal(s.gpu_util_pct as f64 / 100.0, 2);
            flags.push(("--gpu-memory-utilization", fraction));
            flags.push(("--max-num-seqs", s.concurrency.to_string()));
            flags.push(("--max-num-batched-tokens", s.batched_tokens.to_string()));
            flags.extend(kv_dtype(server, s.kv_dtype).map(|d| ("--kv-cache-dtype", d.into())));
            flags.push(("--block-size", s.block_size.to_string()));
            if s.shared_prefix > 0 {
                flags.push(("--enable-prefix-caching", String::new()));
            }
        }
        Server::Sglang => {
            flags.push(("--model-path", model_path(s)));
            let dp = s.attention_ranks();
            // with data-parallel attention SGLang's --tp is every GPU, attention split by tp / dp
            flags.push(("--tp", (s.tp * dp).to_string()));
            if dp > 1 {
                flags.push(("--dp-size", dp.to_string()));
                flags.push(("--enable-dp-attention", String::new()));
            }
            if s.expert_parallel {
                flags.push(("--ep-size", (s.tp * dp).to_string()));
            }
            if s.pp > 1 {
                flags.push(("--pp-size", s.pp.to_string()));
            }
            flags.push(("--context-length", s.max_model_len.to_string()));
            let permille = crate::sglang::mem_fraction_permille(s, s.gpu);
            flags.push((
                "--mem-fraction-static",
                crate::decimal::decimal(permille as f64 / 1e3, 3),
            ));
            flags.push(("--max-running-requests", s.concurrency.to_string()));
            flags.extend(kv_dtype(server, s.kv_dtype).map(|d| ("--kv-cache-dtype", d.into())));
            flags.push(("--page-size", s.block_size.to_string()));
            // SGLang's radix cache shares prefixes unless --disable-radix-cache
        }
    }
    if s.cpu_offload_gib > 0 {
        flags.push(("--cpu-offload-gb", s.cpu_offload_gib.to_string()));
    }
    if s.max_loras > 0 {
        let slots = match server {
            Server::Vllm => "--max-loras",
            Server::Sglang => "--max-loras-per-batch",
        };
        flags.push(("--enable-lora", String::new()));
        flags.push((slots, s.max_loras.to_string()));
        flags.push(("--max-lora-rank", s.max_lora_rank.to_string()));
    }
    flags.extend(quantization(s.weights).map(|q| ("--quantization", q.into())));
    if s.cuda_graphs == CudaGraphs::Eager {
        let eager = match server {
            Server::Vllm => "--enforce-eager",
            Server::Sglang => "--disable-cuda-graph",
        };
        flags.push((eager, String::new()));
    }
    speculative_flags(s, server, &mut flags);
    let program: &'static [&'static str] = match server {
        Server::Vllm => &["vllm", "serve"],
        Server::Sglang => &["python", "-m", "sglang.launch_server"],
    };
    ServeCommand { program, flags }
}

/// The proposer's repository: the draft preset's, or a placeholder for an EAGLE head.
fn proposer_path(s: &Scenario) -> Option<String> {
    match s.spec {
        SpecMethod::Draft => presets::find(s.draft_model).map(|p| p.name.to_string()),
        SpecMethod::Eagle => Some("<eagle-head>".into()),
        _ => None,
    }
}

/// Speculative decoding: vLLM's `--speculative-config` JSON (`vllm/config/speculative.py`,
/// `SpeculativeConfig`), SGLang's `--speculative-algorithm` (EAGLE, NEXTN for a model's MTP
/// layer, STANDALONE for a draft model), its draft path, steps, one chain and the tokens
/// verified per step.
fn speculative_flags(s: &Scenario, server: Server, flags: &mut Vec<(&'static str, String)>) {
    if s.spec == SpecMethod::Off {
        return;
    }
    let k = s.spec_tokens;
    let path = proposer_path(s);
    match server {
        Server::Vllm => {
            let mut fields = match s.spec {
                SpecMethod::Ngram => vec![
                    r#""method":"ngram""#.to_string(),
                    r#""prompt_lookup_max":4"#.into(),
                ],
                SpecMethod::Eagle => vec![r#""method":"eagle""#.into()],
                SpecMethod::Mtp => vec![r#""method":"mtp""#.into()],
                _ => Vec::new(),
            };
            if let Some(p) = path {
                fields.push(format!(r#""model":"{p}""#));
            }
            fields.push(format!(r#""num_speculative_tokens":{k}"#));
            flags.push(("--speculative-config", format!("{{{}}}", fields.join(","))));
        }
        Server::Sglang => {
            let algorithm = match s.spec {
                SpecMethod::Ngram => "NGRAM",
                SpecMethod::Eagle => "EAGLE",
                SpecMethod::Mtp => "NEXTN",
                _ => "STANDALONE",
            };
            flags.push(("--speculative-algorithm", algorithm.into()));
            flags.extend(path.map(|p| ("--speculative-draft-model-path", p)));
            flags.push(("--speculative-num-steps", k.to_string()));
            if s.spec != SpecMethod::Ngram {
                // one chain of k drafted tokens: the target verifies them and its own, k + 1
                // (`--speculative-num-draft-tokens`, python/sglang/srt/server_args.py; the
                // decode batches the budget sizes with `decode_query_len`)
                flags.push(("--speculative-eagle-topk", "1".into()));
                flags.push(("--speculative-num-draft-tokens", (k + 1).to_string()));
            }
        }
    }
}

/// The maximum concurrency vLLM prints at start-up ("Maximum concurrency for N tokens per
/// request: X x"): the KV pool's tokens (`GPU KV cache size`) / max_model_len, in hundredths.
pub fn startup_concurrency(f: &ServingFit, s: &Scenario) -> u64 {
    f.tokens.saturating_mul(100) / s.max_model_len.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Job;

    #[test]
    fn a_served_preset_gets_a_vllm_command_with_its_repository_and_settings() {
        let s = Scenario {
            job: Job::Serving,
            gpus: 4,
            tp: 4,
            kv_dtype: KvDtype::Fp8,
            ..Scenario::default()
        };
        let line = serve_command(&s, Server::Vllm).line();
        assert!(line.starts_with("vllm serve meta-llama/"), "{line}");
        for part in [
            "--tensor-parallel-size 4",
            "--max-model-len 8192",
            "--gpu-memory-utilization 0.90",
            "--max-num-seqs 16",
            "--kv-cache-dtype fp8",
            "--block-size 16",
        ] {
            assert!(line.contains(part), "{part} in {line}");
        }
        // SGLang's own default on RTX 4090s at TP 4: (24,564 − 4,256 MiB reserved) / 24,564
        let sglang = serve_command(&s, Server::Sglang).line();
        assert!(sglang.contains("--tp 4 --context-length 8192 --mem-fraction-static 0.827"));
        let set = Scenario {
            mem_fraction_permille: 750,
            ..s
        };
        let sglang = serve_command(&set, Server::Sglang).line();
        assert!(sglang.contains("--mem-fraction-static 0.750"), "{sglang}");
    }

    #[test]
    fn eager_mode_and_a_draft_model_reach_both_commands() {
        let s = Scenario {
            job: Job::Serving,
            cuda_graphs: CudaGraphs::Eager,
            spec: SpecMethod::Draft,
            spec_tokens: 5,
            draft_model: "llama-3.2-1b",
            ..Scenario::default()
        };
        let line = serve_command(&s, Server::Vllm).line();
        assert!(line.ends_with(
            r#"--enforce-eager --speculative-config '{"model":"meta-llama/Llama-3.2-1B","num_speculative_tokens":5}'"#
        ), "{line}");
        let sglang = serve_command(&s, Server::Sglang).line();
        assert!(
            sglang.ends_with(
                "--disable-cuda-graph --speculative-algorithm STANDALONE \
             --speculative-draft-model-path meta-llama/Llama-3.2-1B --speculative-num-steps 5 \
             --speculative-eagle-topk 1 --speculative-num-draft-tokens 6"
            ),
            "{sglang}"
        );
        let ngram = Scenario {
            spec: SpecMethod::Ngram,
            ..s
        };
        let line = serve_command(&ngram, Server::Vllm).line();
        assert!(
            line.contains(
                r#"'{"method":"ngram","prompt_lookup_max":4,"num_speculative_tokens":5}'"#
            ),
            "{line}"
        );
    }

    #[test]
    fn lora_slots_and_a_shared_prefix_add_their_flags_and_switches_take_no_value() {
        let s = Scenario {
            job: Job::Serving,
            max_loras: 4,
            max_lora_rank: 64,
            shared_prefix: 512,
            ..Scenario::default()
        };
        let line = serve_command(&s, Server::Vllm).line();
        assert!(line.ends_with(
            "--block-size 16 --enable-prefix-caching --enable-lora --max-loras 4 --max-lora-rank 64"
        ), "{line}");
        let sglang = serve_command(&s, Server::Sglang).line();
        assert!(sglang.contains("--enable-lora --max-loras-per-batch 4 --max-lora-rank 64"));
        let plain = serve_command(
            &Scenario {
                job: Job::Serving,
                ..Scenario::default()
            },
            Server::Vllm,
        );
        assert!(!plain.line().contains("lora") && !plain.line().contains("prefix"));
    }

    #[test]
    fn a_model_name_with_spaces_or_quotes_is_quoted_for_the_shell() {
        assert_eq!(quoted("it's a model"), r"'it'\''s a model'");
        assert_eq!(quoted("Qwen/Qwen3-8B"), "Qwen/Qwen3-8B");
    }
}
