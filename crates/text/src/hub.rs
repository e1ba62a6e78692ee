//! The words of the Hub and of safetensors checkpoints: errors of ids, endpoints, listings,
//! headers and indexes, and where the files and the config.json disagree, in both languages.

use vram_engine::{
    hub::EntryField, hub::FetchFailure, hub::FileDifference, hub::HubError, hub::IndexError,
    hub::SafetensorsError, hub::SafetensorsLimit, Unit,
};

use crate::errors::json_problem;
use crate::{shown, Lang};

/// A Hub id, endpoint or listing error as a sentence.
pub fn hub_error(lang: Lang, e: &HubError) -> String {
    let zh = lang == Lang::Zh;
    match (zh, e) {
        (false, HubError::EmptyId) => "type a model id such as Qwen/Qwen2.5-7B-Instruct".into(),
        (true, HubError::EmptyId) => "请输入模型 ID，例如 Qwen/Qwen2.5-7B-Instruct".into(),
        (false, HubError::BadRepoId(id)) => format!(
            "{:?} is not a model id: owner/name with letters, digits, '-', '_' and '.'",
            shown(id)
        ),
        (true, HubError::BadRepoId(id)) => format!(
            "{:?} 不是模型 ID：应为 owner/name，只含字母、数字、'-'、'_' 和 '.'",
            shown(id)
        ),
        (false, HubError::BadRevision(r)) => {
            format!("{:?} is not a branch, tag or commit", shown(r))
        }
        (true, HubError::BadRevision(r)) => format!("{:?} 不是分支、标签或提交", shown(r)),
        (false, HubError::BadFilePath(p)) => {
            format!("{:?} is not a plain file path in the repository", shown(p))
        }
        (true, HubError::BadFilePath(p)) => format!("{:?} 不是仓库中的普通文件路径", shown(p)),
        (false, HubError::NotAModelUrl(u)) => format!(
            "{:?} is not a model's page (datasets and Spaces have no weights to budget)",
            shown(u)
        ),
        (true, HubError::NotAModelUrl(u)) => format!(
            "{:?} 不是模型页面（数据集和 Space 没有可估算的权重）",
            shown(u)
        ),
        (false, HubError::BadEndpoint(u)) => format!(
            "{:?} is not an endpoint: write https://host[:port] (like HF_ENDPOINT)",
            shown(u)
        ),
        (true, HubError::BadEndpoint(u)) => format!(
            "{:?} 不是可用的端点：请写成 https://host[:port]（与 HF_ENDPOINT 相同）",
            shown(u)
        ),
        (false, HubError::TooLarge { bytes, limit }) => format!(
            "the Hub's answer is {} KiB, over the {} KiB read",
            bytes / 1024,
            limit / 1024
        ),
        (true, HubError::TooLarge { bytes, limit }) => format!(
            "Hub 返回的内容有 {} KiB，超过读取上限 {} KiB",
            bytes / 1024,
            limit / 1024
        ),
        (false, HubError::NotJson(j)) => format!(
            "the Hub's file list is not JSON (line {}, column {}: {})",
            j.line,
            j.column,
            json_problem(lang, j.why)
        ),
        (true, HubError::NotJson(j)) => format!(
            "Hub 的文件列表不是 JSON（第 {} 行第 {} 列：{}）",
            j.line,
            j.column,
            json_problem(lang, j.why)
        ),
        (false, HubError::NoFileList) => "the Hub's answer lists no files".into(),
        (true, HubError::NoFileList) => "Hub 的返回中没有文件列表".into(),
        (false, HubError::BadDate(d)) => format!("{:?} is not a date (YYYY-MM-DD)", shown(d)),
        (true, HubError::BadDate(d)) => format!("{:?} 不是日期（YYYY-MM-DD）", shown(d)),
    }
}

fn limit_name(lang: Lang, l: SafetensorsLimit) -> &'static str {
    match l {
        SafetensorsLimit::HeaderBytes => lang.pick("header size in bytes", "文件头字节数"),
        SafetensorsLimit::Tensors => lang.pick("tensor count", "张量数"),
        SafetensorsLimit::NameLength => lang.pick("tensor name length", "张量名长度"),
        SafetensorsLimit::Dimensions => lang.pick("dimension count", "维数"),
        SafetensorsLimit::MetadataEntries => lang.pick("metadata entry count", "元数据条目数"),
        SafetensorsLimit::Shards => lang.pick("shard count", "分片数"),
    }
}

fn field_name(f: EntryField) -> &'static str {
    match f {
        EntryField::Entry => "{…}",
        EntryField::Dtype => "dtype",
        EntryField::Shape => "shape",
        EntryField::DataOffsets => "data_offsets",
    }
}

/// A safetensors header error as a sentence (`file`: the shard it came from).
pub fn safetensors_error(lang: Lang, file: &str, e: &SafetensorsError) -> String {
    use SafetensorsError::*;
    let file = shown(file);
    let zh = lang == Lang::Zh;
    let what = match (zh, e) {
        (false, NeedMoreBytes { needed }) => {
            format!("the header is cut short: it needs {needed} bytes")
        }
        (true, NeedMoreBytes { needed }) => format!("文件头不完整：需要 {needed} 字节"),
        (false, OverLimit { limit, value }) => format!(
            "its {} is {value}, over the {} this reader accepts",
            limit_name(lang, *limit),
            limit.max()
        ),
        (true, OverLimit { limit, value }) => format!(
            "{}为 {value}，超过读取上限 {}",
            limit_name(lang, *limit),
            limit.max()
        ),
        (false, NotAHeader) => "it does not start with a JSON object".into(),
        (true, NotAHeader) => "文件头不是以 JSON 对象开头".into(),
        (false, NotUtf8) => "its header is not UTF-8".into(),
        (true, NotUtf8) => "文件头不是 UTF-8".into(),
        (false, NotJson(j)) => format!(
            "its header is not JSON (column {}: {})",
            j.column,
            json_problem(lang, j.why)
        ),
        (true, NotJson(j)) => format!(
            "文件头不是 JSON（第 {} 列：{}）",
            j.column,
            json_problem(lang, j.why)
        ),
        (false, BadEntry { tensor, field }) => format!(
            "tensor {:?} has no valid {}",
            shown(tensor),
            field_name(*field)
        ),
        (true, BadEntry { tensor, field }) => {
            format!("张量 {:?} 的 {} 无效", shown(tensor), field_name(*field))
        }
        (false, UnknownDtype { tensor, dtype }) => format!(
            "tensor {:?} has an unknown dtype {:?}",
            shown(tensor),
            shown(dtype)
        ),
        (true, UnknownDtype { tensor, dtype }) => {
            format!("张量 {:?} 的 dtype {:?} 未知", shown(tensor), shown(dtype))
        }
        (false, BadMetadata) => "its __metadata__ is not an object of strings".into(),
        (true, BadMetadata) => "__metadata__ 不是字符串对象".into(),
        (false, TensorTooLarge { tensor }) => {
            format!("tensor {:?} is too large to address", shown(tensor))
        }
        (true, TensorTooLarge { tensor }) => format!("张量 {:?} 大到无法寻址", shown(tensor)),
        (
            false,
            WrongSize {
                tensor,
                offsets,
                shape,
            },
        ) => format!(
            "tensor {:?} spans {offsets} bytes, but its shape and dtype need {shape}",
            shown(tensor)
        ),
        (
            true,
            WrongSize {
                tensor,
                offsets,
                shape,
            },
        ) => format!(
            "张量 {:?} 占 {offsets} 字节，但其形状和 dtype 需要 {shape} 字节",
            shown(tensor)
        ),
        (
            false,
            NotContiguous {
                tensor,
                begin,
                expected,
            },
        ) => format!(
            "tensor {:?} starts at byte {begin} of the data, where {expected} was expected",
            shown(tensor)
        ),
        (
            true,
            NotContiguous {
                tensor,
                begin,
                expected,
            },
        ) => format!(
            "张量 {:?} 从数据的第 {begin} 字节开始，应从第 {expected} 字节开始",
            shown(tensor)
        ),
        (false, FileLength { expected, actual }) => {
            format!("the file is {actual} bytes, but its header describes {expected}")
        }
        (true, FileLength { expected, actual }) => {
            format!("文件有 {actual} 字节，但文件头描述的是 {expected} 字节")
        }
    };
    match zh {
        false => format!("{file}: {what}"),
        true => format!("{file}：{what}"),
    }
}

/// A `model.safetensors.index.json` error as a sentence.
pub fn index_error(lang: Lang, e: &IndexError) -> String {
    let zh = lang == Lang::Zh;
    match (zh, e) {
        (false, IndexError::TooLarge { bytes, limit }) => format!(
            "the index is {} KiB, over the {} KiB read",
            bytes / 1024,
            limit / 1024
        ),
        (true, IndexError::TooLarge { bytes, limit }) => format!(
            "索引文件有 {} KiB，超过读取上限 {} KiB",
            bytes / 1024,
            limit / 1024
        ),
        (false, IndexError::NotJson(j)) => format!(
            "the index is not JSON (line {}, column {}: {})",
            j.line,
            j.column,
            json_problem(lang, j.why)
        ),
        (true, IndexError::NotJson(j)) => format!(
            "索引文件不是 JSON（第 {} 行第 {} 列：{}）",
            j.line,
            j.column,
            json_problem(lang, j.why)
        ),
        (false, IndexError::NoWeightMap) => "the index has no weight_map".into(),
        (true, IndexError::NoWeightMap) => "索引文件中没有 weight_map".into(),
        (false, IndexError::BadShard(f)) => {
            format!(
                "the index names {:?}, not a .safetensors file in the repository",
                shown(f)
            )
        }
        (true, IndexError::BadShard(f)) => {
            format!(
                "索引文件指向 {:?}，它不是仓库中的 .safetensors 文件",
                shown(f)
            )
        }
        (false, IndexError::OverLimit { limit, value }) => format!(
            "the index's {} is {value}, over the {} this reader accepts",
            limit_name(lang, *limit),
            limit.max()
        ),
        (true, IndexError::OverLimit { limit, value }) => format!(
            "索引文件的{}为 {value}，超过读取上限 {}",
            limit_name(lang, *limit),
            limit.max()
        ),
    }
}

/// Where the files and the config.json disagree, as a sentence; sizes in `unit`.
pub fn file_difference(lang: Lang, d: &FileDifference, unit: Unit) -> String {
    let th = vram_engine::units::thousands;
    let zh = lang == Lang::Zh;
    match (zh, d) {
        (false, FileDifference::Params { config, files }) => format!(
            "the files hold {} parameters; config.json's shape gives {} ({})",
            th(*files),
            th(*config),
            signed(*files, *config, th)
        ),
        (true, FileDifference::Params { config, files }) => format!(
            "文件中有 {} 个参数；按 config.json 的结构为 {} 个（{}）",
            th(*files),
            th(*config),
            signed(*files, *config, th)
        ),
        (false, FileDifference::WeightBytes { format, nominal, files }) => format!(
            "the weights take {} in the files; {}'s nominal bits give {} ({}); budgets use the files",
            unit.format(*files),
            format.key(),
            unit.format(*nominal),
            signed(*files, *nominal, |n| unit.format(n))
        ),
        (true, FileDifference::WeightBytes { format, nominal, files }) => format!(
            "文件中的权重占 {}；按 {} 的标称位宽为 {}（{}）；估算采用文件中的大小",
            unit.format(*files),
            format.key(),
            unit.format(*nominal),
            signed(*files, *nominal, |n| unit.format(n))
        ),
        (false, FileDifference::Buffers { tensors, bytes }) => format!(
            "{tensors} tensors ({}) are buffers, not parameters (rotary frequencies, masks) and are not counted",
            unit.format(*bytes)
        ),
        (true, FileDifference::Buffers { tensors, bytes }) => format!(
            "{tensors} 个张量（{}）是缓冲区而不是参数（旋转位置频率、掩码），不计入",
            unit.format(*bytes)
        ),
        (false, FileDifference::NoMatchingFormat { scheme }) => format!(
            "the files are stored as {}, which no weight format here matches: budgets use the chosen format's nominal bits",
            scheme.label()
        ),
        (true, FileDifference::NoMatchingFormat { scheme }) => format!(
            "文件的存储方式是 {}，没有对应的权重格式：估算按所选格式的标称位宽",
            scheme.key()
        ),
        (false, FileDifference::IndexTotal { index, files }) => format!(
            "the index says {} bytes of tensors; the shards' headers add up to {}",
            th(*index),
            th(*files)
        ),
        (true, FileDifference::IndexTotal { index, files }) => format!(
            "索引文件记录张量共 {} 字节；各分片文件头合计 {} 字节",
            th(*index),
            th(*files)
        ),
    }
}

/// `+n` or `−n`: how far `a` is from `b`.
fn signed(a: u64, b: u64, show: impl Fn(u64) -> String) -> String {
    if a >= b {
        format!("+{}", show(a - b))
    } else {
        format!("−{}", show(b - a))
    }
}

/// Why a fetch from the Hub failed, as a sentence saying what to do.
pub fn fetch_failure(lang: Lang, f: &FetchFailure) -> String {
    let zh = lang == Lang::Zh;
    match (zh, f) {
        (false, FetchFailure::NotFound { url }) => format!(
            "not found: {} (check the model id, the revision and the file name)",
            shown(url)
        ),
        (true, FetchFailure::NotFound { url }) => {
            format!("未找到：{}（请检查模型 ID、版本和文件名）", shown(url))
        }
        (false, FetchFailure::Gated { repo, status }) => format!(
            "{} is gated or private (HTTP {status}): accept its terms on the model's page and use a token with access (HF_TOKEN on the command line), or paste its config.json instead",
            shown(repo)
        ),
        (true, FetchFailure::Gated { repo, status }) => format!(
            "{} 是受限或私有仓库（HTTP {status}）：请在模型页面接受使用条款并使用有权限的令牌（命令行用 HF_TOKEN），或改为粘贴它的 config.json",
            shown(repo)
        ),
        (false, FetchFailure::RateLimited { retry_after }) => match retry_after {
            Some(s) => format!("the Hub is rate-limiting requests: try again in {s} s, or use a token"),
            None => "the Hub is rate-limiting requests: try again in a minute, or use a token".into(),
        },
        (true, FetchFailure::RateLimited { retry_after }) => match retry_after {
            Some(s) => format!("Hub 正在限流：请 {s} 秒后重试，或使用令牌"),
            None => "Hub 正在限流：请一分钟后重试，或使用令牌".into(),
        },
        (false, FetchFailure::Status { status, url }) => {
            format!("the Hub answered HTTP {status} for {}", shown(url))
        }
        (true, FetchFailure::Status { status, url }) => {
            format!("Hub 对 {} 返回了 HTTP {status}", shown(url))
        }
        (false, FetchFailure::Offline { host }) => format!(
            "cannot reach {}: offline? Set the endpoint to a mirror (HF_ENDPOINT), or paste a config.json",
            shown(host)
        ),
        (true, FetchFailure::Offline { host }) => format!(
            "无法连接 {}：是否离线？可将端点设为镜像（HF_ENDPOINT），或粘贴 config.json",
            shown(host)
        ),
        (false, FetchFailure::TimedOut { seconds }) => format!(
            "the Hub did not answer within {seconds} s: try again, or set the endpoint to a mirror"
        ),
        (true, FetchFailure::TimedOut { seconds }) => {
            format!("Hub 在 {seconds} 秒内没有响应：请重试，或将端点设为镜像")
        }
        (false, FetchFailure::TooLarge { url, limit }) => format!(
            "{} is larger than the {} KiB read for it",
            shown(url),
            limit / 1024
        ),
        (true, FetchFailure::TooLarge { url, limit }) => format!(
            "{} 超过读取上限 {} KiB",
            shown(url),
            limit / 1024
        ),
        (false, FetchFailure::Truncated { url, expected, got }) => format!(
            "{} ended after {got} of the {expected} bytes asked for (a cut header)",
            shown(url)
        ),
        (true, FetchFailure::Truncated { url, expected, got }) => format!(
            "{} 在请求的 {expected} 字节中只返回了 {got} 字节（文件头不完整）",
            shown(url)
        ),
        (false, FetchFailure::TooManyRedirects { url }) => {
            format!("{} redirects too many times", shown(url))
        }
        (true, FetchFailure::TooManyRedirects { url }) => format!("{} 重定向次数过多", shown(url)),
        (false, FetchFailure::BadRedirect { url }) => {
            format!("{} redirects to no usable address", shown(url))
        }
        (true, FetchFailure::BadRedirect { url }) => format!("{} 重定向到了无法使用的地址", shown(url)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vram_engine::{hub::QuantScheme, json::JsonError, json::JsonProblem, WeightFormat};

    fn json_error() -> JsonError {
        JsonError {
            line: 1,
            column: 3,
            why: JsonProblem::ExpectedValue,
        }
    }

    fn every_message(lang: Lang) -> Vec<String> {
        let hub = [
            HubError::EmptyId,
            HubError::BadRepoId("a b".into()),
            HubError::BadRevision("..".into()),
            HubError::BadFilePath("../x".into()),
            HubError::NotAModelUrl("x".into()),
            HubError::BadEndpoint("x".into()),
            HubError::TooLarge {
                bytes: 9 << 20,
                limit: 8 << 20,
            },
            HubError::NotJson(json_error()),
            HubError::NoFileList,
            HubError::BadDate("2026-02-30".into()),
        ];
        let header = [
            SafetensorsError::NeedMoreBytes { needed: 8 },
            SafetensorsError::OverLimit {
                limit: SafetensorsLimit::Tensors,
                value: 1 << 20,
            },
            SafetensorsError::NotAHeader,
            SafetensorsError::NotUtf8,
            SafetensorsError::NotJson(json_error()),
            SafetensorsError::BadEntry {
                tensor: "a".into(),
                field: EntryField::Shape,
            },
            SafetensorsError::UnknownDtype {
                tensor: "a".into(),
                dtype: "Q4".into(),
            },
            SafetensorsError::BadMetadata,
            SafetensorsError::TensorTooLarge { tensor: "a".into() },
            SafetensorsError::WrongSize {
                tensor: "a".into(),
                offsets: 7,
                shape: 8,
            },
            SafetensorsError::NotContiguous {
                tensor: "a".into(),
                begin: 5,
                expected: 4,
            },
            SafetensorsError::FileLength {
                expected: 10,
                actual: 9,
            },
        ];
        let index = [
            IndexError::TooLarge {
                bytes: 40 << 20,
                limit: 32 << 20,
            },
            IndexError::NotJson(json_error()),
            IndexError::NoWeightMap,
            IndexError::BadShard("x.bin".into()),
        ];
        let differences = [
            FileDifference::Params {
                config: 10,
                files: 12,
            },
            FileDifference::WeightBytes {
                format: WeightFormat::Gptq4,
                nominal: 3 << 30,
                files: 4 << 30,
            },
            FileDifference::Buffers {
                tensors: 32,
                bytes: 8_192,
            },
            FileDifference::NoMatchingFormat {
                scheme: QuantScheme::Gptq,
            },
            FileDifference::IndexTotal { index: 1, files: 2 },
        ];
        let fetch = [
            FetchFailure::NotFound { url: "u".into() },
            FetchFailure::Gated {
                repo: "a/b".into(),
                status: 401,
            },
            FetchFailure::RateLimited {
                retry_after: Some(3),
            },
            FetchFailure::RateLimited { retry_after: None },
            FetchFailure::Status {
                status: 500,
                url: "u".into(),
            },
            FetchFailure::Offline { host: "h".into() },
            FetchFailure::TimedOut { seconds: 30 },
            FetchFailure::TooLarge {
                url: "u".into(),
                limit: 1 << 20,
            },
            FetchFailure::Truncated {
                url: "u".into(),
                expected: 9,
                got: 3,
            },
            FetchFailure::TooManyRedirects { url: "u".into() },
            FetchFailure::BadRedirect { url: "u".into() },
        ];
        let mut out: Vec<String> = hub.iter().map(|e| hub_error(lang, e)).collect();
        out.extend(fetch.iter().map(|f| fetch_failure(lang, f)));
        out.extend(
            header
                .iter()
                .map(|e| safetensors_error(lang, "model.safetensors", e)),
        );
        out.extend(index.iter().map(|e| index_error(lang, e)));
        out.extend(
            differences
                .iter()
                .map(|d| file_difference(lang, d, Unit::Gib)),
        );
        out
    }

    #[test]
    fn every_hub_message_is_one_line_in_both_languages_and_they_differ() {
        let (en, zh) = (every_message(Lang::En), every_message(Lang::Zh));
        for (e, z) in en.iter().zip(&zh) {
            assert_ne!(e, z);
            for t in [e, z] {
                assert!(!t.chars().any(char::is_control) && t.len() < 400, "{t:?}");
            }
            assert!(
                z.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
                "{z}"
            );
        }
    }

    #[test]
    fn a_difference_says_which_way_the_files_differ() {
        let d = FileDifference::Params {
            config: 8_030_261_248,
            files: 8_030_265_344,
        };
        assert_eq!(
            file_difference(Lang::En, &d, Unit::Gib),
            "the files hold 8,030,265,344 parameters; config.json's shape gives 8,030,261,248 (+4,096)"
        );
    }
}
