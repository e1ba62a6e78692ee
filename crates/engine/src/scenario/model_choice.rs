//! Which model a scenario plans for: a preset, a config.json, or a bare parameter count.

use crate::config;
use crate::error::EngineError;
use crate::model::presets;
use crate::model::Architecture;

/// Which model: a preset, a pasted config.json, or a bare parameter count.
#[derive(Clone, Debug, PartialEq)]
pub enum ModelChoice {
    Preset(&'static str),
    Custom {
        name: String,
        arch: Box<Architecture>,
        /// The Hub repository it was read from, when it was.
        source: Option<crate::hub::HubSource>,
    },
    Params(u64),
}

impl ModelChoice {
    /// The architecture behind the choice.
    pub fn architecture(&self) -> Result<Architecture, EngineError> {
        match self {
            ModelChoice::Preset(id) => presets::find(id)
                .map(|p| p.architecture())
                .ok_or_else(|| EngineError::UnknownPreset(id.to_string())),
            ModelChoice::Custom { arch, .. } => {
                arch.validate()?;
                Ok((**arch).clone())
            }
            ModelChoice::Params(n) => Architecture::from_param_count(*n),
        }
    }

    /// Whether the model has an encoder beside its decoder (T5, BART, Whisper).
    pub fn is_encoder_decoder(&self) -> bool {
        match self {
            ModelChoice::Preset(id) => presets::find(id).is_some_and(|p| p.is_encoder_decoder()),
            ModelChoice::Custom { arch, .. } => arch.encoder.is_some(),
            ModelChoice::Params(_) => false,
        }
    }

    /// The name shown for the model.
    pub fn name(&self) -> String {
        match self {
            ModelChoice::Preset(id) => presets::find(id)
                .map(|p| p.name.to_string())
                .unwrap_or_else(|| id.to_string()),
            ModelChoice::Custom { name, .. } => name.clone(),
            ModelChoice::Params(n) => format!(
                "{} dense (approximate shape)",
                crate::units::short_count(*n)
            ),
        }
    }

    /// A custom architecture from config.json text.
    pub fn from_config(name: &str, text: &str) -> Result<ModelChoice, EngineError> {
        Ok(ModelChoice::custom(name, config::parse_config(text)?))
    }

    /// A custom model named `name` (its first 80 characters).
    pub fn custom(name: &str, arch: Architecture) -> ModelChoice {
        ModelChoice::Custom {
            name: name.chars().take(80).collect(),
            arch: Box::new(arch),
            source: None,
        }
    }
}
