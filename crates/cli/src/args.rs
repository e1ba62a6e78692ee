//! The command line through clap's builder: each setting of the engine's registry (`SETTINGS`)
//! is an option by its flag, with its help, link key and default; beside them the model, the
//! link, the output, the measurement, the Hub and the llama.cpp report's options, and
//! llama.cpp's older spellings as hidden options. clap reads the words; [`Given`] keeps them in
//! the order typed for the budget (`main`) and the llama.cpp report (`llama_flags`) to read.

use std::ffi::OsString;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Arg, ArgAction, ArgMatches, Command};
use vram_engine::{Scenario, SettingKind, SETTINGS};
use vram_text::{setting_help, Lang};

use crate::llama_flags::{local_flag, OLDER};

/// An option as typed (`--batch`, `-ngl`), with its value when it takes one, in command-line
/// order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Given {
    pub flag: String,
    pub value: Option<String>,
}

impl Given {
    pub fn new(flag: &str, value: Option<&str>) -> Given {
        Given {
            flag: flag.to_string(),
            value: value.map(str::to_string),
        }
    }
}

/// What the command line asks for: the help, or a run with these options.
pub enum Parsed {
    Help(String),
    Run(Vec<Given>),
}

/// llama.cpp's switches that stand alone (on) or take 0|1, as the registry's switches do.
const BARE_SWITCHES: [&str; 2] = ["kv-unified", "swa-full"];

const ABOUT: &str = "vram-budget: how much GPU memory an LLM job needs, and whether it fits";

const USAGE: &str = "vram-budget [OPTIONS]
       vram-budget --link 'https://…/?v=1&m=llama-3.1-8b&j=lora&b=4'
       vram-budget --hf owner/name [OPTIONS]
       vram-budget --gguf FILE [OPTIONS]";

/// The options that are not settings: (flag, value name or "" for none, help, heading).
const OPTIONS: &[(&str, &str, &str, &str)] = &[
    (
        "model",
        "ID",
        "a preset (see --list-models)  [m=llama-3.1-8b]",
        MODEL,
    ),
    (
        "params",
        "N",
        "a bare parameter count: 7B, 1.5B, 350M (approximate dense shape)",
        MODEL,
    ),
    ("config", "FILE", "a Hugging Face config.json", MODEL),
    ("name", "NAME", "the name of the --config model", MODEL),
    (
        "link",
        "URL",
        "a link of the page: its settings, then the flags on top",
        MODEL,
    ),
    ("json", "", "the answer as JSON, sizes in bytes", OUTPUT),
    (
        "explain",
        "",
        "each line's formula with its numbers",
        OUTPUT,
    ),
    ("list-models", "", "the presets", OUTPUT),
    ("list-gpus", "", "the GPUs and their memory", OUTPUT),
    (
        "measured",
        "FILE",
        "compare with what you measured (- for standard input): a vLLM or llama.cpp log, \
         torch.cuda.memory_stats()/memory_summary(), nvidia-smi, the measuring tool's JSON, \
         or a size such as \"21.3 GiB allocated\"",
        MEASURED,
    ),
    (
        "hf",
        "ID",
        "owner/name, owner/name@revision, or a Hub URL (…/tree/rev, …/blob/rev/file.gguf); \
         only config.json, the index and the headers are read",
        HUB,
    ),
    (
        "hf-file",
        "NAME",
        "in a GGUF repository, a quantization (Q4_K_M) or a file name; a split file's parts \
         (-00001-of-0000N) are read and joined, headers only",
        HUB,
    ),
    (
        "hf-endpoint",
        "URL",
        "the Hub or a mirror [HF_ENDPOINT, else https://huggingface.co]",
        HUB,
    ),
    ("hf-timeout", "S", "seconds per request [30]", HUB),
    (
        "gguf",
        "FILE",
        "a GGUF file's header: llama.cpp's buffers per device, with the llama.cpp settings \
         above",
        LLAMA,
    ),
    (
        "gguf-alt",
        "FILE",
        "another quantization of the model, for the best quant that fits (repeat it)",
        LLAMA,
    ),
    (
        "mmproj",
        "FILE",
        "a multimodal projector loaded beside the model",
        LLAMA,
    ),
    (
        "ollama",
        "",
        "Ollama's defaults for the model and machine (v0.30+); also with --job local",
        LLAMA,
    ),
    ("lang", "en|zh", "the report's language [en]", LLAMA),
];

const MODEL: &str = "MODEL (one of, or a link)";
const SETTINGS_HEADING: &str =
    "SETTINGS (each is also a link key, shown in brackets with its default)";
const OUTPUT: &str = "OUTPUT";
const MEASURED: &str = "YOUR MEASUREMENT";
const HUB: &str = "HUGGING FACE HUB";
const LLAMA: &str = "LLAMA.CPP / OLLAMA";

/// What follows the options: the token, the settings a llama.cpp run reads (the registry's,
/// `--job` aside) and the older spellings, wrapped at 96 columns.
fn after_help() -> String {
    let local = SETTINGS
        .iter()
        .filter(|st| local_flag(st) && st.key != "j")
        .map(|st| format!("--{}", st.flag));
    let older = OLDER.iter().map(|o| o.typed.to_string());
    let words = |text: &str| text.split(' ').map(str::to_string).collect::<Vec<_>>();
    let mut out = wrapped(&words(
        "HF_TOKEN: a token for gated or private repositories, sent to the endpoint's host only.",
    ));
    out.push('\n');
    let mut with_gguf = words("With --gguf, the settings llama.cpp reads apply:");
    with_gguf.extend(local);
    out.push_str(&wrapped(&with_gguf));
    out.push('\n');
    let mut spellings = words("Older spellings still work and print a deprecation notice:");
    spellings.extend(older);
    spellings.extend(words("--flash-attn on|off --mac M3-MAX-64"));
    out.push_str(&wrapped(&spellings));
    out
}

/// Words joined by spaces into lines of at most 96 columns.
fn wrapped(words: &[String]) -> String {
    let mut lines = vec![String::new()];
    for word in words {
        let line = lines.last_mut().expect("one line at least");
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > 96 {
            lines.push(word.clone());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines.join("\n")
}

/// The help line of a setting: its help, its choices, and `[key=default]`.
fn setting_line(st: &vram_engine::Setting, defaults: &Scenario) -> String {
    let choices = match st.kind {
        SettingKind::Choice => format!(": {}", st.keys().join(" ")),
        _ => String::new(),
    };
    format!(
        "{}{choices}  [{}={}]",
        setting_help(Lang::En, st.id),
        st.key,
        st.text(defaults)
    )
}

/// An option that takes a value (any text, a leading `-` included, as `--batch -1`), any
/// number of times (the last one counts), or none.
fn option(id: &'static str, value_name: &'static str) -> Arg {
    let arg = Arg::new(id).action(ArgAction::Append);
    match value_name {
        "" => arg.num_args(0).default_missing_value(""),
        v => arg.value_name(v).allow_hyphen_values(true),
    }
}

/// The whole command: the registry's settings and every other option.
pub fn command() -> Command {
    let defaults = Scenario::default();
    let mut cmd = Command::new("vram-budget")
        .no_binary_name(true)
        .about(ABOUT)
        .override_usage(USAGE)
        .after_help(after_help())
        .disable_help_flag(true);
    let arg = |(flag, value, help, heading): &(
        &'static str,
        &'static str,
        &'static str,
        &'static str,
    )| {
        option(flag, value)
            .long(*flag)
            .help(*help)
            .help_heading(*heading)
    };
    let (model, others): (Vec<_>, Vec<_>) = OPTIONS.iter().partition(|o| o.3 == MODEL);
    cmd = cmd
        .args(model.into_iter().map(arg))
        .args(settings(&defaults))
        .args(others.into_iter().map(arg))
        .arg(
            Arg::new("help")
                .short('h')
                .long("help")
                .action(ArgAction::Help)
                .help("this help")
                .help_heading(OUTPUT),
        );
    for older in OLDER {
        let mut arg = option(older.typed, if older.takes_value { "V" } else { "" }).hide(true);
        arg = match older.typed.strip_prefix("--") {
            Some(long) => arg.long(long),
            None if older.typed.len() == 2 => arg.short(older.typed.chars().nth(1).unwrap_or('-')),
            None => arg.long(older.clap_long),
        };
        cmd = cmd.arg(arg);
    }
    cmd
}

/// One option per setting of the registry, by its flag.
fn settings(defaults: &Scenario) -> Vec<Arg> {
    SETTINGS
        .iter()
        .map(|st| {
            let arg = Arg::new(st.flag)
                .long(st.flag)
                .action(ArgAction::Append)
                .value_name(st.value_hint)
                .help(setting_line(st, defaults))
                .help_heading(SETTINGS_HEADING);
            match BARE_SWITCHES.contains(&st.flag) {
                true => arg.num_args(0..=1).default_missing_value("1"),
                false => arg.allow_hyphen_values(true),
            }
        })
        .collect()
}

/// llama.cpp's spellings with one dash and several letters (`-ngl`), which clap reads as
/// clustered short options, under the hidden long name clap knows them by.
fn older_long_names(argv: &[String]) -> Vec<OsString> {
    argv.iter()
        .map(|a| {
            match OLDER
                .iter()
                .find(|o| o.typed == a && !o.typed.starts_with("--"))
            {
                Some(o) if o.typed.len() > 2 => OsString::from(format!("--{}", o.clap_long)),
                _ => OsString::from(a),
            }
        })
        .collect()
}

/// Reads the command line: the help, or the options in the order typed; a mistake is one line.
pub fn parse(argv: &[String]) -> Result<Parsed, String> {
    let cmd = command();
    let matches = match cmd.clone().try_get_matches_from(older_long_names(argv)) {
        Ok(m) => m,
        Err(e) if e.kind() == ErrorKind::DisplayHelp => {
            return Ok(Parsed::Help(e.render().to_string()))
        }
        Err(e) => return Err(one_line(&e, argv)),
    };
    Ok(Parsed::Run(in_order(&cmd, &matches)))
}

/// Every option given, as typed, in command-line order.
fn in_order(cmd: &Command, matches: &ArgMatches) -> Vec<Given> {
    let mut given: Vec<(usize, Given)> = Vec::new();
    for arg in cmd.get_arguments() {
        let id = arg.get_id().as_str();
        let (Some(values), Some(indices)) = (matches.get_raw(id), matches.indices_of(id)) else {
            continue;
        };
        let takes_value = arg.get_num_args().is_none_or(|n| n.takes_values());
        let flag = match id.starts_with('-') {
            true => id.to_string(),
            false => format!("--{id}"),
        };
        for (value, at) in values.zip(indices) {
            let value = takes_value.then(|| value.to_string_lossy().into_owned());
            given.push((
                at,
                Given {
                    flag: flag.clone(),
                    value,
                },
            ));
        }
    }
    given.sort_by_key(|(at, _)| *at);
    given.into_iter().map(|(_, g)| g).collect()
}

/// clap's error as the one line the CLI prints: an unknown option (as typed: `-xyz`, where
/// clap names its first letter), a missing value, or clap's own first line.
fn one_line(e: &clap::Error, argv: &[String]) -> String {
    let mut arg = match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(s)) => s.clone(),
        _ => String::new(),
    };
    if arg.len() == 2 && arg.starts_with('-') {
        arg = argv
            .iter()
            .find(|a| a.starts_with(&arg))
            .unwrap_or(&arg)
            .clone();
    }
    // `--batch <N>` names the option, `--llama-cpp-ngl <V>` its older spelling
    let flag = arg.split(' ').next().unwrap_or_default();
    let typed = OLDER
        .iter()
        .find(|o| flag.strip_prefix("--") == Some(o.clap_long))
        .map_or(flag, |o| o.typed);
    match e.kind() {
        ErrorKind::UnknownArgument => format!("unknown option {arg:?} (see --help)"),
        ErrorKind::InvalidValue | ErrorKind::NoEquals => format!("{typed} needs a value"),
        _ => {
            let rendered = e.render().to_string();
            let first = rendered.lines().next().unwrap_or_default();
            first.trim_start_matches("error: ").to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Result<Parsed, String> {
        parse(&args.iter().map(|a| a.to_string()).collect::<Vec<_>>())
    }

    fn given(args: &[&str]) -> Vec<Given> {
        match run(args) {
            Ok(Parsed::Run(g)) => g,
            Ok(Parsed::Help(_)) => panic!("help, not a run"),
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn every_setting_of_the_registry_is_an_option_by_its_flag() {
        let cmd = command();
        for st in SETTINGS {
            let arg = cmd
                .get_arguments()
                .find(|a| a.get_long() == Some(st.flag))
                .unwrap_or_else(|| panic!("no --{}", st.flag));
            assert_eq!(arg.get_id().as_str(), st.flag);
            let flag = format!("--{}", st.flag);
            // each reads its value as typed, one that starts with a dash included (llama.cpp's
            // bare switches take 0 or 1, or stand alone)
            let value = match BARE_SWITCHES.contains(&st.flag) {
                true => "0",
                false => "-7",
            };
            assert_eq!(
                given(&[&flag, value]),
                vec![Given::new(&flag, Some(value))],
                "{flag}"
            );
        }
    }

    #[test]
    fn the_help_lists_every_setting_with_its_link_key_and_default() {
        let Ok(Parsed::Help(help)) = run(&["--help"]) else {
            panic!("--help is the help");
        };
        let d = Scenario::default();
        for st in SETTINGS {
            let line = help
                .lines()
                .find(|l| l.trim_start().starts_with(&format!("--{} ", st.flag)))
                .unwrap_or_else(|| panic!("--help lacks --{}", st.flag));
            assert!(
                line.contains(&format!("[{}={}]", st.key, st.text(&d))),
                "{line}"
            );
        }
        // the older spellings stay out of the list
        assert!(!help.contains("--llama-cpp-"), "{help}");
    }

    #[test]
    fn options_come_back_in_the_order_typed_with_both_spellings_of_a_value() {
        assert_eq!(
            given(&["--batch", "2", "--json", "--gpu=h100", "--batch", "4"]),
            vec![
                Given::new("--batch", Some("2")),
                Given::new("--json", None),
                Given::new("--gpu", Some("h100")),
                Given::new("--batch", Some("4")),
            ]
        );
    }

    #[test]
    fn llama_cpps_spellings_read_as_typed() {
        assert_eq!(
            given(&[
                "-ngl",
                "3",
                "-c",
                "8192",
                "--kv-unified",
                "--swa-full",
                "0",
                "--no-mmap"
            ]),
            vec![
                Given::new("-ngl", Some("3")),
                Given::new("-c", Some("8192")),
                Given::new("--kv-unified", Some("1")),
                Given::new("--swa-full", Some("0")),
                Given::new("--no-mmap", None),
            ]
        );
    }

    #[test]
    fn a_mistake_is_one_line_that_names_the_option() {
        let err = |args: &[&str]| run(args).err().unwrap();
        assert_eq!(
            err(&["--frobnicate"]),
            "unknown option \"--frobnicate\" (see --help)"
        );
        assert_eq!(err(&["lora"]), "unknown option \"lora\" (see --help)");
        assert_eq!(err(&["-xyz"]), "unknown option \"-xyz\" (see --help)");
        assert_eq!(err(&["--json", "--batch"]), "--batch needs a value");
        assert_eq!(err(&["-ngl"]), "-ngl needs a value");
    }
}
