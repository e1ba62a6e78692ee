//! `--gguf FILE`'s flags: the registry's llama.cpp / Ollama settings (`--ngl`, `--ctx-size`,
//! `--machine`, `--mac` + `--mac-memory` …, named as in links and on the page), read into a
//! scenario the way links are (llama.cpp's bare `--kv-unified` and `--swa-full` too, and
//! `--tensor-split`, which also sets the GPU count when `--gpus` is not given); and the older
//! spellings, kept as aliases that print a one-line deprecation notice.

use crate::args::Given;
use vram_engine::{
    link::decode_pairs, link::Notice, llamacpp::Mac, llamacpp::Projector, llamacpp::ProjectorFile,
    llamacpp::MAC_CHIPS, scenario::LocalMachine, Job, Scenario, Setting,
};
use vram_text::{error, notice, refusal, Lang};

/// What `--gguf` runs: the files, the run the flags describe, and how to print.
pub struct GgufRun {
    pub file: String,
    /// The run the flags describe, from which llama.cpp's settings and the machine follow (before
    /// `--ollama`'s defaults, which need the header).
    pub scenario: Scenario,
    /// `--ollama`: Ollama's defaults for the model and machine.
    pub ollama: bool,
    /// `--mmproj FILE`: a multimodal projector loaded beside the model.
    pub mmproj: Option<String>,
    pub alternatives: Vec<String>,
    pub json: bool,
    pub lang: Lang,
    /// One line per older spelling used: what to type instead.
    pub deprecations: Vec<String>,
}

/// An older spelling of a llama.cpp option.
pub struct Older {
    /// As typed: `--ctx`, `-c`, `-ngl`.
    pub typed: &'static str,
    /// The hidden long name clap reads a one-dash spelling of several letters by.
    pub clap_long: &'static str,
    pub takes_value: bool,
    meaning: Meaning,
}

/// What an older spelling stands for.
enum Meaning {
    /// The registry's flag of this name, with the same value.
    Renamed(&'static str),
    /// `-fa on|off|0|1`: `--flash-attn 1|0`.
    FlashAttn,
    /// The registry's flag of this name, set to this value (`--no-mmap`: `--mmap 0`).
    Set(&'static str, &'static str),
}

const fn older(typed: &'static str, clap_long: &'static str, meaning: Meaning) -> Older {
    let takes_value = !matches!(meaning, Meaning::Set(..));
    Older {
        typed,
        clap_long,
        takes_value,
        meaning,
    }
}

/// llama.cpp's and this CLI's older spellings, kept as aliases.
pub const OLDER: &[Older] = &[
    older("--ctx", "ctx", Meaning::Renamed("ctx-size")),
    older("-c", "", Meaning::Renamed("ctx-size")),
    older("--n-gpu-layers", "n-gpu-layers", Meaning::Renamed("ngl")),
    older("-ngl", "llama-cpp-ngl", Meaning::Renamed("ngl")),
    older("-np", "llama-cpp-np", Meaning::Renamed("parallel")),
    older("-b", "", Meaning::Renamed("batch-size")),
    older("-ub", "llama-cpp-ub", Meaning::Renamed("ubatch-size")),
    older("-ctk", "llama-cpp-ctk", Meaning::Renamed("cache-type-k")),
    older("-ctv", "llama-cpp-ctv", Meaning::Renamed("cache-type-v")),
    older("-ncmoe", "llama-cpp-ncmoe", Meaning::Renamed("n-cpu-moe")),
    older("-ts", "llama-cpp-ts", Meaning::Renamed("tensor-split")),
    older("-sm", "llama-cpp-sm", Meaning::Renamed("split-mode")),
    older("-fa", "llama-cpp-fa", Meaning::FlashAttn),
    older("--no-mmap", "no-mmap", Meaning::Set("mmap", "0")),
    older(
        "--no-op-offload",
        "no-op-offload",
        Meaning::Set("op-offload", "0"),
    ),
    older(
        "--no-mmproj-offload",
        "no-mmproj-offload",
        Meaning::Set("mmproj-offload", "0"),
    ),
    older("--cpu-only", "cpu-only", Meaning::Set("machine", "cpu")),
];

/// An older spelling as the registry's flags (name without `--`, value), or None.
fn alias(given: &Given) -> Option<Vec<(&'static str, String)>> {
    let older = OLDER.iter().find(|o| o.typed == given.flag)?;
    let value = given.value.clone().unwrap_or_default();
    Some(match older.meaning {
        Meaning::Renamed(to) => vec![(to, value)],
        Meaning::FlashAttn => {
            let bit = flash_attn_words(&value).map_or(value, String::from);
            vec![("flash-attn", bit)]
        }
        Meaning::Set(to, v) => vec![(to, v.to_string())],
    })
}

/// `--flash-attn on|off` (llama.cpp's words) as the registry's 1|0.
fn flash_attn_words(v: &str) -> Option<&'static str> {
    match v {
        "on" => Some("1"),
        "off" => Some("0"),
        _ => None,
    }
}

/// `--mac M3-MAX-64` (chip and memory in one key) as `--machine mac --mac M3-MAX --mac-memory 64`.
fn mac_with_memory(v: &str) -> Option<Vec<(&'static str, String)>> {
    Mac::find(v)?;
    let (chip, gb) = v.rsplit_once('-')?;
    let chip = MAC_CHIPS
        .iter()
        .find(|c| c.key.eq_ignore_ascii_case(chip))?;
    Some(vec![
        ("machine", "mac".into()),
        ("mac", chip.key.into()),
        ("mac-memory", gb.into()),
    ])
}

fn spelled(flags: &[(&'static str, String)]) -> String {
    flags
        .iter()
        .map(|(f, v)| format!("--{f} {v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Reads `--gguf`'s options (the Hub's are `hub`'s).
pub fn parse(options: &[Given]) -> Result<GgufRun, String> {
    let mut file = String::new();
    let mut mmproj = None;
    let mut ollama = false;
    let mut alternatives = Vec::new();
    let mut json = false;
    let mut lang = Lang::En;
    let mut deprecations = Vec::new();
    // (flag as typed, registry setting, value)
    let mut given: Vec<(String, &'static Setting, String)> = Vec::new();
    for option in options {
        let f = option.flag.as_str();
        let value = || option.value.clone().unwrap_or_default();
        match f {
            "--gguf" => file = value(),
            "--gguf-alt" => alternatives.push(value()),
            "--mmproj" => mmproj = Some(value()),
            "--json" => json = true,
            "--ollama" => ollama = true,
            "--lang" => {
                let v = value();
                lang = Lang::from_key(&v)
                    .ok_or_else(|| format!("--lang: en or zh, not \"{}\"", vram_text::shown(&v)))?
            }
            _ if crate::hub::FLAGS.contains(&f) => {}
            "--job" => return Err("--gguf plans a llama.cpp run: --job does not apply".into()),
            f => {
                let flags = match alias(option) {
                    Some(flags) => {
                        deprecations.push(format!("{f} is deprecated; use {}", spelled(&flags)));
                        flags
                    }
                    None => registry_flag(f, value(), &mut deprecations)?,
                };
                for (name, v) in flags {
                    let st = Setting::by_flag(name).expect("aliases name registry flags");
                    given.push((f.to_string(), st, v));
                }
            }
        }
    }
    if file.is_empty() {
        return Err("--gguf needs a file".into());
    }
    let mut pairs = vec![("j".to_string(), "local".to_string())];
    for (typed, st, v) in &given {
        if !local_flag(st) {
            return Err(format!(
                "{typed} does not apply to a llama.cpp run (see --help)"
            ));
        }
        st.parse(v)
            .map_err(|r| format!("{typed}: {}", refusal(Lang::En, st, &r)))?;
        pairs.push((st.key.to_string(), v.clone()));
    }
    let on_mac_only = given
        .iter()
        .find(|(_, st, _)| !applies_locally(st, LocalMachine::Gpu));
    let machine_given = given.iter().any(|(_, st, _)| st.key == "mch");
    if let (Some((typed, _, _)), false) = (on_mac_only, machine_given) {
        return Err(format!("{typed} needs --machine mac"));
    }
    let decoded = decode_pairs(&pairs);
    if let Some(first) = decoded.notices.first() {
        return Err(match first {
            Notice::Normalized(r) => error(Lang::En, r.cause()),
            n => notice(Lang::En, n),
        });
    }
    let mut s = decoded.scenario;
    let gpus_given = given.iter().any(|(_, st, _)| st.key == "n");
    if !s.tensor_split.is_even() && s.machine == LocalMachine::Gpu {
        if gpus_given && !s.tensor_split.applies_to(s.gpus as usize) {
            return Err(format!(
                "--tensor-split names {} GPUs, --gpus {}",
                s.tensor_split.gpus(),
                s.gpus
            ));
        }
        s.gpus = s.tensor_split.gpus() as u64;
    }
    Ok(GgufRun {
        file,
        scenario: s,
        ollama,
        mmproj,
        alternatives,
        json,
        lang,
        deprecations,
    })
}

/// A registry flag as typed (`--ctx-size 8192`), with the older values some take
/// (`--flash-attn on`, `--mac M3-MAX-64`) turned into the registry's.
fn registry_flag(
    f: &str,
    v: String,
    deprecations: &mut Vec<String>,
) -> Result<Vec<(&'static str, String)>, String> {
    let Some(st) = f.strip_prefix("--").and_then(Setting::by_flag) else {
        return Err(format!(
            "unknown option {} (with --gguf; see --help)",
            vram_text::shown(f)
        ));
    };
    let older = match st.flag {
        "flash-attn" => flash_attn_words(&v).map(|bit| vec![(st.flag, bit.to_string())]),
        "mac" if st.parse(&v).is_err() => mac_with_memory(&v),
        _ => None,
    };
    match older {
        Some(flags) => {
            deprecations.push(format!("{f} {v} is deprecated; use {}", spelled(&flags)));
            Ok(flags)
        }
        None => Ok(vec![(st.flag, v)]),
    }
}

/// The registry's settings a llama.cpp run reads on some machine: its own, the GPU model and
/// count, the Mac's.
pub fn local_flag(st: &Setting) -> bool {
    [
        LocalMachine::Gpu,
        LocalMachine::Mac,
        LocalMachine::Uma,
        LocalMachine::Cpu,
    ]
    .into_iter()
    .any(|m| applies_locally(st, m))
}

fn applies_locally(st: &Setting, machine: LocalMachine) -> bool {
    // a run on two GPUs with every optional file loaded (the split mode applies only to several
    // GPUs, the projector's settings only beside one)
    let projector = Projector {
        weight_bytes: 0,
        patches: 1,
        heads: 1,
        n_ff: 1,
        embd: 1,
        window_mask: false,
    };
    let s = Scenario {
        job: Job::Local,
        machine,
        gpus: 2,
        mmproj: Some(Box::new(ProjectorFile {
            name: String::new(),
            projector,
        })),
        ..Scenario::default()
    };
    (st.applies)(&s)
}
