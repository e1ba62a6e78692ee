//! What the page and the CLI say after reading a model from the Hub: what was read, and why a
//! model was not read.

use vram_engine::hub::HubReadError;
use vram_engine::{hub::FileWeights, hub::HubSource, hub::CONFIG_FILE, hub::INDEX_FILE, Unit};

use crate::{shown, Lang};

/// One line on what was read: files, bytes fetched, tensors, parameters, weight bytes per
/// element type and the storage scheme.
pub fn hub_summary(
    lang: Lang,
    source: &HubSource,
    shards: usize,
    fetched: u64,
    files: &FileWeights,
    unit: Unit,
) -> String {
    let th = vram_engine::units::thousands;
    let dtypes: Vec<String> = files
        .by_dtype
        .iter()
        .map(|(d, t)| format!("{} {}", d.key(), unit.format(t.bytes)))
        .collect();
    let (repo, rev) = (shown(&source.repo), shown(&source.revision));
    match lang {
        Lang::En => format!(
            "read {repo}@{rev} on {}: config.json and {shards} shard header(s), {} fetched; {} tensors, {} parameters, {} of weights ({}), stored as {}",
            source.read_on,
            unit.format(fetched),
            th(files.total.tensors),
            th(files.params),
            unit.format(files.weight_bytes()),
            dtypes.join(", "),
            files.scheme.label(),
        ),
        Lang::Zh => format!(
            "已于 {} 读取 {repo}@{rev}：config.json 与 {shards} 个分片文件头，共下载 {}；{} 个张量，{} 个参数，权重 {}（{}），存储方式 {}",
            source.read_on,
            unit.format(fetched),
            th(files.total.tensors),
            th(files.params),
            unit.format(files.weight_bytes()),
            dtypes.join("，"),
            files.scheme.label(),
        ),
    }
}

/// A GGUF repository listed: how many model files it holds to pick from.
pub fn gguf_listed(lang: Lang, source: &HubSource, count: usize) -> String {
    let (repo, rev) = (shown(&source.repo), shown(&source.revision));
    match lang {
        Lang::En => format!(
            "{repo}@{rev} holds {count} GGUF model file(s): pick one to plan a llama.cpp / Ollama run from its header (the tensor data is not read)"
        ),
        Lang::Zh => format!(
            "{repo}@{rev} 有 {count} 个 GGUF 模型文件：选一个，按其文件头规划 llama.cpp / Ollama 运行（不读取张量数据）"
        ),
    }
}

/// A GGUF file's header read from the Hub: which file, its parts, the bytes fetched and the
/// Range requests that fetched them.
pub fn gguf_read(
    lang: Lang,
    source: &HubSource,
    file: &str,
    parts: usize,
    fetched: u64,
    requests: usize,
) -> String {
    let (repo, rev, file) = (shown(&source.repo), shown(&source.revision), shown(file));
    let bytes = vram_engine::units::thousands(fetched);
    match lang {
        Lang::En => format!(
            "read {repo}@{rev} on {}: the header of {file} ({parts} part(s)), {bytes} bytes fetched in {requests} Range request(s); the tensor data was not read",
            source.read_on
        ),
        Lang::Zh => format!(
            "已于 {} 读取 {repo}@{rev}：{file} 的文件头（{parts} 个部分），用 {requests} 次 Range 请求共下载 {bytes} 字节；未读取张量数据",
            source.read_on
        ),
    }
}

/// A GGUF file whose header could not be read to its end.
pub fn gguf_unread(lang: Lang, file: &str) -> String {
    match lang {
        Lang::En => format!(
            "{}: the GGUF header could not be read to its end",
            shown(file)
        ),
        Lang::Zh => format!("{}：无法读完 GGUF 文件头", shown(file)),
    }
}

/// A repository with neither safetensors nor GGUF files at the revision read.
pub fn no_weight_files(lang: Lang, repo: &str) -> String {
    match lang {
        Lang::En => format!(
            "{} has no safetensors or GGUF files at this revision",
            shown(repo)
        ),
        Lang::Zh => format!("{} 在此版本没有 safetensors 或 GGUF 文件", shown(repo)),
    }
}

/// Why a model was not read from the Hub.
pub fn hub_read_error(lang: Lang, e: &HubReadError) -> String {
    match e {
        HubReadError::Id(e) => crate::hub_error(lang, e),
        HubReadError::Fetch(f) => crate::fetch_failure(lang, f),
        HubReadError::Config(e) => format!("{CONFIG_FILE}: {}", crate::error(lang, e)),
        HubReadError::Index(e) => format!("{INDEX_FILE}: {}", crate::index_error(lang, e)),
        HubReadError::Shard(file, e) => crate::safetensors_error(lang, file, e),
        HubReadError::NoWeights(repo) => no_weight_files(lang, repo),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gguf_header_read_says_the_file_the_bytes_and_the_requests_in_both_languages() {
        let source = HubSource {
            repo: "org/m-GGUF".into(),
            revision: "abc".into(),
            read_on: "2026-12-01".into(),
        };
        let en = gguf_read(Lang::En, &source, "m.Q4_K_M.gguf", 1, 12_345, 7);
        let zh = gguf_read(Lang::Zh, &source, "m.Q4_K_M.gguf", 1, 12_345, 7);
        assert!(
            en.contains("m.Q4_K_M.gguf") && en.contains("12,345 bytes fetched in 7 Range"),
            "{en}"
        );
        assert!(
            zh.contains("12,345 字节") && zh.contains("7 次 Range"),
            "{zh}"
        );
        assert!(gguf_listed(Lang::En, &source, 3).contains("holds 3 GGUF"));
        assert!(no_weight_files(Lang::En, "a/b").starts_with("a/b has no"));
    }

    #[test]
    fn a_read_that_failed_names_the_file_in_both_languages() {
        let e = HubReadError::Config(vram_engine::EngineError::NotAnObject);
        for lang in [Lang::En, Lang::Zh] {
            assert!(hub_read_error(lang, &e).starts_with("config.json: "));
        }
        let none = HubReadError::NoWeights("a/b".into());
        assert_eq!(
            hub_read_error(Lang::En, &none),
            no_weight_files(Lang::En, "a/b")
        );
    }
}
