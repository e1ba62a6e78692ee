//! Making a scenario's settings work together: each conflict is repaired by putting the one setting
//! that causes it back to its default, again until none is left or one cannot be repaired.

use crate::error::EngineError;
use crate::scenario::Setting;
use crate::scenario::{LoraTargets, Scenario};

/// What normalizing did about one conflict between settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Repair {
    /// `cause` went away when the setting with link key `setting` went back to its default.
    Reset {
        cause: EngineError,
        setting: &'static str,
    },
    /// `cause` is left: no reset repairs it, and the scenario cannot be estimated as it is.
    Unrepaired(EngineError),
}

impl Repair {
    /// The conflict repaired or left.
    pub fn cause(&self) -> &EngineError {
        match self {
            Repair::Reset { cause, .. } | Repair::Unrepaired(cause) => cause,
        }
    }
}

impl Scenario {
    /// Makes the settings work together, saying what it changed: while a conflict is left, the
    /// setting that causes it goes back to its default. Each reset puts one more setting at its
    /// default for good, so this ends within as many rounds as there are settings, with settings
    /// that work together or with [`Repair::Unrepaired`] last. The link decoder, the page and the CLI
    /// all call this after changing settings.
    pub fn normalize(&mut self) -> Vec<Repair> {
        let mut done = Vec::new();
        while let Some(cause) = self.conflict() {
            match cause_setting(&cause).filter(|st| self.reset(st)) {
                Some(st) => done.push(Repair::Reset {
                    cause,
                    setting: st.key,
                }),
                None => {
                    done.push(Repair::Unrepaired(cause));
                    break;
                }
            }
        }
        done
    }

    /// The first conflict between the settings: LoRA targets the model lacks, or what
    /// [`Scenario::validate`] refuses.
    fn conflict(&self) -> Option<EngineError> {
        self.absent_lora_targets().or_else(|| self.validate().err())
    }

    /// LoRA targets none of which the model has (nothing would train).
    fn absent_lora_targets(&self) -> Option<EngineError> {
        if !self.job.is_peft() || self.lora_targets == LoraTargets::empty() {
            return None;
        }
        let arch = self.model.architecture().ok()?;
        (crate::memory::lora_params(&arch, self) == 0)
            .then_some(EngineError::LoraTargetsAbsent(self.lora_targets))
    }

    /// Puts `st` back to its default for the job (the weights: the job's own); false when it is
    /// there already.
    fn reset(&mut self, st: &Setting) -> bool {
        let default = st.get(&Scenario::for_job(self.job));
        if st.get(self) == default {
            return false;
        }
        st.set(self, default);
        true
    }
}

/// The setting whose default repairs `cause`; `None` for a conflict no single setting causes.
fn cause_setting(cause: &EngineError) -> Option<&'static Setting> {
    let key = match cause {
        EngineError::OutOfRange { setting, .. } => setting.as_str(),
        EngineError::TpDoesNotDivide { .. } => "tp",
        EngineError::PpDoesNotDivide { .. } => "pp",
        EngineError::FormatNotForJob { .. } => "w",
        EngineError::PartFormatNotForJob { part, .. } => part.key(),
        EngineError::StepInBackwardAccumulates { .. } => "obw",
        EngineError::NoLoraTargets | EngineError::LoraTargetsAbsent(_) => "t",
        _ => return None,
    };
    Setting::by_key(key)
}
