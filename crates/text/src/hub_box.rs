//! The words of the Hub id box, which the on-demand readers module writes
//! (`crates/readers/src/hub/panel.rs`): kept out of the page's table so the first load does not
//! carry them.

use crate::Lang;

/// The text for `key` in `lang`; "?" when the key is missing (caught by a test).
pub fn hub_box_text(lang: Lang, key: &str) -> &'static str {
    crate::row(HUB_BOX, key).map_or("?", |(_, en, zh)| lang.pick(en, zh))
}

/// (key, English, Chinese).
const HUB_BOX: &[crate::Row] = &[
    ("hub_id", "Model id or Hub URL (owner/name, owner/name@revision)", "模型 ID 或 Hub 网址（owner/name、owner/name@revision）"),
    ("hub_read", "Read", "读取"),
    ("hub_access", "Endpoint and token", "端点与令牌"),
    ("hub_endpoint", "Endpoint: the Hub or a mirror", "端点：Hub 或镜像"),
    ("hub_bad_endpoint", "Not an endpoint: http(s)://host[:port][/path], such as https://hf-mirror.com.", "不是有效端点：应为 http(s)://host[:port][/path]，例如 https://hf-mirror.com。"),
    ("hub_token", "Token (gated or private models)", "令牌（受限或私有模型）"),
    ("hub_token_note", "Kept in this tab's memory only: never in the link, never stored, sent only to the endpoint's host. Only config.json, the index and the file headers are read, never the weights.", "只保存在本标签页的内存中：不进链接、不存储，只发送给端点所在主机。只读取 config.json、索引和文件头，不下载权重。"),
    ("reading", "Reading …", "正在读取……"),
    ("readers_failed", "the Hub's answer could not be read; try again", "无法读取 Hub 的答复；请重试"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_of_the_hub_box_has_text_in_both_languages() {
        for (k, en, zh) in HUB_BOX {
            assert!(!en.is_empty() && !zh.is_empty(), "{k}");
        }
        assert_eq!(hub_box_text(Lang::Zh, "hub_read"), "读取");
        assert_eq!(hub_box_text(Lang::En, "no-such-key"), "?");
    }
}
