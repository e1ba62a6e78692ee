//! What the page says after reading a model from the Hub: what was read, and why a repository
//! gave no safetensors model.

use vram_engine::{FileWeights, HubSource, Unit};

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
    let th = vram_engine::thousands;
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

/// A repository that holds only GGUF files (listed), which the page does not plan from yet.
pub fn gguf_only(lang: Lang, files: &[String]) -> String {
    let list = files
        .iter()
        .map(|f| shown(f))
        .collect::<Vec<_>>()
        .join(", ");
    match lang {
        Lang::En => format!(
            "this repository holds GGUF files only ({list}); the page reads safetensors repositories: use the command line's --hf with --hf-file, or paste the original model's config.json"
        ),
        Lang::Zh => format!(
            "该仓库只有 GGUF 文件（{list}）；网页目前只读取 safetensors 仓库：请用命令行的 --hf 加 --hf-file，或粘贴原始模型的 config.json"
        ),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gguf_only_repository_lists_its_files_in_both_languages() {
        let files = vec!["m.Q4_K_M.gguf".to_string(), "m.Q8_0.gguf".to_string()];
        let en = gguf_only(Lang::En, &files);
        let zh = gguf_only(Lang::Zh, &files);
        assert!(en.contains("m.Q4_K_M.gguf, m.Q8_0.gguf"), "{en}");
        assert!(
            zh.contains("m.Q8_0.gguf") && zh.contains("只有 GGUF"),
            "{zh}"
        );
        assert!(no_weight_files(Lang::En, "a/b").starts_with("a/b has no"));
    }
}
