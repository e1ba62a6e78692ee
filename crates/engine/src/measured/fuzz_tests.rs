//! "Your measurement" against anything a user might paste: arbitrary text and bytes, mutated real
//! log lines, hostile inputs (huge numbers, long lines, NUL bytes, a million lines), and the
//! properties the page relies on (exact sizes, links that round-trip and stay short).
//!
//! The approach of `fuzz.rs`: proptest strategies, every call timed and its output bounded, and
//! whatever is accepted must be usable. `FUZZ_CASES` sets the cases per target (default 2,000).

use std::time::{Duration, Instant};

use crate::{
    measured::link::LINK_MAX, measured::Device, measured::DeviceApi, measured::Facts,
    measured::Figure, measured::Level, measured::MeasureError, measured::Measurement,
    measured::Reading, measured::SizeUnit, measured::SourceKind, measured::MAX_BYTES,
    measured::MAX_COUNT, measured::MAX_FIGURES, measured::MAX_INPUT_BYTES, measured::MAX_LINES,
};
use proptest::prelude::*;
use proptest::sample::select;

/// The longest one parse may take (debug build, a busy machine).
const MAX_CALL: Duration = Duration::from_secs(2);

fn cases() -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000)
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Everything a parse may return: in time, bounded, and an accepted measurement survives its link.
fn check(text: &str) {
    let t = Instant::now();
    let r = crate::measured::parse(text);
    let took = t.elapsed();
    assert!(took < MAX_CALL, "{took:?} on {:?}", prefix(text));
    match r {
        Ok(m) => usable(&m),
        Err(e) => {
            let s = e.to_string();
            assert!(s.len() < 100 && !s.chars().any(char::is_control), "{s:?}");
        }
    }
    for kind in SourceKind::ALL {
        if let Ok(m) = crate::measured::parse_as(*kind, text) {
            usable(&m);
        }
    }
}

fn prefix(text: &str) -> String {
    text.chars().take(200).collect()
}

fn usable(m: &Measurement) {
    assert!(m.figures().len() <= MAX_FIGURES);
    assert!(!m.figures().is_empty() || !m.facts().is_empty());
    for f in m.figures() {
        assert!(f.bytes <= MAX_BYTES, "{f:?}");
    }
    let link = m.to_link();
    assert!(link.len() <= LINK_MAX, "{link}");
    let back = Measurement::from_link(&link).unwrap_or_else(|e| panic!("{link}: {e}"));
    same_up_to_link(m, &back);
}

/// `back` is `m` with the figures that did not fit the link left out from the end.
fn same_up_to_link(m: &Measurement, back: &Measurement) {
    assert_eq!(back.source(), m.source());
    assert_eq!(back.facts(), m.facts());
    assert_eq!(back.figures(), &m.figures()[..back.figures().len()]);
}

// ---- inputs -------------------------------------------------------------------------------------

/// Real lines of every source (the fixtures in src/measured/tests.rs cite where each was posted).
const LINES: &[&str] = &[
    "INFO 01-16 09:40:00 worker.py:238] the current vLLM instance can use total_gpu_memory (79.22GiB) x gpu_memory_utilization (0.90) = 71.29GiB",
    "INFO 01-16 09:40:00 worker.py:238] model weights take 19.86GiB; non_torch_memory takes 0.16GiB; PyTorch activation peak memory takes 36.63GiB; the rest of the memory reserved for KV Cache is 14.65GiB.",
    "INFO 01-16 09:40:00 executor_base.py:95] # CUDA blocks: 6001, # CPU blocks: 1638",
    "Memory profiling results: total_gpu_memory=23.58GiB initial_memory_usage=15.34GiB peak_torch_memory=17.06GiB memory_usage_post_profile=15.35GiB non_torch_memory=0.35GiB kv_cache_size=3.81GiB gpu_memory_utilization=0.90",
    "Loading model weights took 14.9888 GB",
    "INFO 04-24 16:33:00 [gpu_model_runner.py:1316] Model loading took 14.9889 GiB and 3.652170 seconds",
    "INFO 04-24 16:33:13 [kv_cache_utils.py:634] GPU KV cache size: 158,656 tokens",
    "INFO 04-24 16:33:13 [kv_cache_utils.py:637] Maximum concurrency for 32,768 tokens per request: 4.84x",
    "(Worker_TP0 pid=447) INFO 08-14 14:07:22 [gpu_worker.py:563] Available KV cache memory: 6.87 GiB",
    "llm_load_tensors:      CUDA0 buffer size =  5434.38 MiB",
    "llama_kv_cache_init:      CUDA1 KV buffer size =  3584.00 MiB",
    "llama_new_context_with_model:      CUDA0 compute buffer size =   672.01 MiB",
    "load_tensors:  MTL0_Mapped model buffer size = 14803.73 MiB",
    "llama_context:  CUDA_Host compute buffer size =    23.00 MiB",
    "ggml_metal_init: recommendedMaxWorkingSetSize  = 21845.34 MB",
    "ggml_metal_add_buffer: allocated 'data            ' buffer, size =  8967.25 MB, (30939.41 / 21845.34)",
    "| Allocated memory      |    1024 B  |  133632 B  |  273920 B  |  272896 B  |",
    "|                  PyTorch CUDA memory summary, device ID 0                 |",
    "{'allocated_bytes.all.peak': 22871605248, 'reserved_bytes.all.peak': 24159191040}",
    "| N/A   27C    P0    32W / 250W |      0MiB / 16384MiB |      0%      Default |",
    "[0] Tesla P100-PCIE-16GB | 27'C,   0 % |   103 / 16384 MB |",
    "index, memory.used [MiB], memory.total [MiB]",
    "0, 71234 MiB, 81559 MiB",
    "{\"peak_bytes_total\": 510703012, \"breakdown_near_peak\": {\"param\": 88745216}}",
    "max_memory_allocated = 21.3 GiB",
    "18.5 GB",
];

/// Pieces that could break a reader.
const TOKENS: &[&str] = &[
    "\0",
    "\n",
    "\r\n",
    "\t",
    " ",
    "|",
    "=",
    ":",
    ",",
    ".",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "'",
    "\"",
    "/",
    "#",
    "~",
    "-",
    "x",
    "GiB",
    "GB",
    "MiB",
    "MB",
    "KB",
    "B",
    "TiB",
    "bytes",
    "allocated",
    "reserved",
    "used",
    "total",
    "buffer size =",
    " KV buffer size = ",
    "CUDA_Host",
    "_Mapped",
    "took",
    "take",
    "is",
    "blocks:",
    "tokens",
    "per request:",
    "memory.used",
    "bytes.all.peak",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999999",
    "0.000000001",
    "1,000,000",
    "1,00",
    ",000",
    "16384",
    "16385",
    "1e9",
    "-1",
    "0",
    "\u{FFFD}",
    "\u{202e}",
    "漢",
    "😀",
    "\u{10FFFF}",
];

fn arb_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => select(TOKENS).prop_map(str::to_string),
        1 => any::<char>().prop_map(String::from),
        1 => "[0-9]{1,30}(\\.[0-9]{1,30})?",
    ]
}

/// Lines of real logs with pieces inserted, replaced and cut.
fn arb_mutated_log() -> impl Strategy<Value = String> {
    let line = (
        select(LINES),
        proptest::collection::vec((any::<usize>(), arb_piece(), 0usize..4), 0..6),
    )
        .prop_map(|(line, edits)| {
            let mut c: Vec<char> = line.chars().collect();
            for (at, piece, cut) in edits {
                let i = at % (c.len() + 1);
                let j = (i + cut).min(c.len());
                c.splice(i..j, piece.chars());
            }
            c.into_iter().collect::<String>()
        });
    proptest::collection::vec(line, 1..12).prop_map(|lines| lines.join("\n"))
}

fn arb_device() -> impl Strategy<Value = Option<Device>> {
    proptest::option::of(
        (
            select(DeviceApi::ALL),
            proptest::option::of(any::<u16>()),
            any::<bool>(),
        )
            .prop_map(|(api, index, mapped)| Device { api, index, mapped }),
    )
}

fn arb_figure() -> impl Strategy<Value = Figure> {
    (
        select(Level::ALL),
        select(SizeUnit::ALL),
        select(Reading::ALL),
        prop_oneof![0..=MAX_BYTES, Just(MAX_BYTES), 0u64..1 << 40],
        arb_device(),
    )
        .prop_map(|(level, unit, reading, bytes, device)| Figure {
            level,
            bytes,
            unit,
            reading,
            device,
        })
}

fn arb_count() -> impl Strategy<Value = Option<u64>> {
    proptest::option::of(prop_oneof![0..=MAX_COUNT, Just(MAX_COUNT), 0u64..100_000])
}

fn arb_facts() -> impl Strategy<Value = Facts> {
    (proptest::collection::vec(arb_count(), 8)).prop_map(|v| Facts {
        gpu_blocks: v[0],
        cpu_blocks: v[1],
        kv_tokens: v[2],
        concurrency_tokens: v[3],
        concurrency_hundredths: v[4],
        gpu_util_hundredths: v[5],
        params: v[6],
        trainable_params: v[7],
    })
}

fn arb_measurement() -> impl Strategy<Value = Measurement> {
    (
        select(SourceKind::ALL),
        proptest::collection::vec(arb_figure(), 1..20),
        arb_facts(),
    )
        .prop_map(|(s, figures, facts)| Measurement::new(s, figures, facts).unwrap())
}

// ---- properties -----------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arbitrary_text_never_panics_or_hangs(text in any::<String>()) {
        check(&text);
    }

    #[test]
    fn arbitrary_bytes_never_panic_or_hang(bytes in proptest::collection::vec(any::<u8>(), 0..1024)) {
        check(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn mutated_real_logs_are_read_or_refused_with_a_typed_error(text in arb_mutated_log()) {
        check(&text);
    }

    #[test]
    fn a_measurement_survives_its_link_and_the_link_stays_short(m in arb_measurement()) {
        let link = m.to_link();
        prop_assert!(link.len() <= LINK_MAX, "{}", link);
        prop_assert!(link.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"~.-".contains(&b)));
        let back = Measurement::from_link(&link).unwrap();
        same_up_to_link(&m, &back);
        // nine figures always fit, whatever their sizes, devices and facts
        if m.figures().len() <= 9 {
            prop_assert_eq!(back, m);
        }
    }

    #[test]
    fn mangled_links_decode_or_are_refused_never_panic(
        m in arb_measurement(),
        at in any::<usize>(),
        piece in prop_oneof![select(TOKENS).prop_map(str::to_string), "[0-9a-z.~-]{1,4}"],
    ) {
        let mut link = m.to_link();
        let mut i = at % (link.len() + 1);
        while !link.is_char_boundary(i) { i -= 1; }
        link.insert_str(i, &piece);
        match Measurement::from_link(&link) {
            Ok(back) => usable(&back),
            Err(e) => prop_assert_eq!(e, MeasureError::BadLink),
        }
    }

    #[test]
    fn a_number_with_a_unit_is_read_to_the_exact_byte(
        int in 0u64..10_000_000,
        frac in "[0-9]{0,6}",
        unit in select(SizeUnit::ALL),
        gap in select(vec!["", " ", "  "]),
        word in select(vec!["allocated", "reserved", "used"]),
    ) {
        prop_assume!(unit != SizeUnit::B || !gap.is_empty());
        let unit_word = if unit == SizeUnit::B { "bytes" } else { unit.label() };
        let number = if frac.is_empty() { int.to_string() } else { format!("{int}.{frac}") };
        let text = format!("{word}: {number}{gap}{unit_word}");
        let per_unit = u128::from(unit.bytes(unit.plain_reading()));
        let scale = 10u128.pow(frac.len() as u32);
        let mantissa = u128::from(int) * scale + frac.parse::<u128>().unwrap_or(0);
        let exact = (mantissa * per_unit * 2 + scale) / (scale * 2);
        match crate::measured::parse(&text) {
            Ok(m) => {
                prop_assert_eq!(m.figures().len(), 1);
                let f = m.figures()[0];
                prop_assert_eq!(u128::from(f.bytes), exact, "{}", text);
                prop_assert_eq!((f.unit, f.reading), (unit, unit.plain_reading()));
                prop_assert_eq!(f.level.key(), word);
            }
            Err(e) => {
                prop_assert!(exact > u128::from(MAX_BYTES), "{}: {}", text, e);
                prop_assert_eq!(e, MeasureError::OutOfRange { line: 1 });
            }
        }
    }
}

// ---- hostile inputs ---------------------------------------------------------------------------------

#[test]
fn huge_numbers_are_out_of_range_or_unreadable_never_wrapped() {
    for text in [
        "allocated 18446744073709551616 GiB",
        "allocated 16385 TiB",
        "Loading model weights took 99999999999999999999 GB",
        "llm_load_tensors:      CUDA0 buffer size = 999999999999999999.99 MiB",
        "| N/A 27C P0 32W / 250W | 99999999999999999999MiB / 16384MiB |",
    ] {
        let e = crate::measured::parse(text).unwrap_err();
        assert!(
            matches!(
                e,
                MeasureError::OutOfRange { line: 1 } | MeasureError::BadNumber { line: 1 }
            ),
            "{text}: {e:?}"
        );
    }
    let digits = format!("allocated {} GiB", "9".repeat(10_000));
    assert_eq!(
        crate::measured::parse(&digits),
        Err(MeasureError::BadNumber { line: 1 })
    );
    let count = "# GPU blocks: 99999999999999999999";
    assert!(crate::measured::parse(count).is_err());
}

#[test]
fn overlong_lines_nul_bytes_and_a_million_lines_are_handled_quickly() {
    let t = Instant::now();
    // a line past MAX_LINE_BYTES is skipped unread, the next one still counts
    let long = format!("{}\n21 GiB allocated", "7 ".repeat(100_000));
    assert_eq!(crate::measured::parse(&long).unwrap().figures().len(), 1);
    // numbers everywhere in one long line that is short enough to read
    let numbers = "1 2 3 4 5 6 7 8 9 ".repeat(800) + "1 GiB used";
    assert_eq!(crate::measured::parse(&numbers).unwrap().figures().len(), 1);
    let nul = "\0".repeat(1000) + "21 GiB\0allocated\0";
    check(&nul);
    assert_eq!(
        crate::measured::parse(&"\n".repeat(1_000_000)),
        Err(MeasureError::TooLarge {
            bytes: 1_000_000,
            limit: MAX_INPUT_BYTES
        })
    );
    let lines = "\n".repeat(MAX_LINES + 10) + "1 GiB";
    assert!(matches!(
        crate::measured::parse(&lines),
        Err(MeasureError::TooManyLines { .. })
    ));
    let deep = format!("{{\"peak_bytes_total\": 1, \"a\": {}", "[".repeat(100_000));
    assert!(matches!(
        crate::measured::parse(&deep),
        Err(MeasureError::BadJson { .. })
    ));
    let many = "llm_load_tensors:      CUDA0 buffer size =  5434.38 MiB\n".repeat(3000)
        + &(0..200)
            .map(|i| format!("llm_load_tensors:      CUDA{i} buffer size =  {i}.5 MiB\n"))
            .collect::<String>();
    assert_eq!(
        crate::measured::parse(&many).unwrap().figures().len(),
        MAX_FIGURES
    );
    assert!(t.elapsed() < MAX_CALL * 4, "{:?}", t.elapsed());
}

#[test]
fn links_from_elsewhere_are_refused() {
    for bad in [
        "",
        "1",
        "1~",
        "2a~~",
        "1z~~",
        "10~~",
        "10~~g",
        "10~~g0.g0",
        "10~X00~",
        "10~000-~",
        "10~0001-00zzzzz~",
        "10~00001~",
        "10~00zzzzzzzzzzzzzz~",
        "10~700A~",
        "10~~gzzzzzzzzzzzzz",
        "10~0~",
    ] {
        assert_eq!(
            Measurement::from_link(bad),
            Err(MeasureError::BadLink),
            "{bad:?}"
        );
    }
    assert!(Measurement::from_link(&"0".repeat(LINK_MAX + 1)).is_err());
}
