//! Where the page shows a setting: its panel, its rank there, and how it draws a choice. Data
//! only; the page builds its panels from [`SETTINGS`](super::SETTINGS) by these.

/// The page's panel a setting's control sits in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Panel {
    /// The job and its workload.
    Job,
    /// The GPUs or the machine, and how the job spreads over them.
    Hardware,
    /// The folded panel of the rarer settings.
    Advanced,
    /// The page's header.
    Header,
    /// Drawn by the local job's module in its answer, not in a panel.
    Module,
}

/// How the page draws a setting (a choice's control; other kinds draw one way).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Look {
    /// A select (choices), a slider with a box (numbers), a checkbox (switches).
    Plain,
    /// A stepped slider with a select beside it.
    Steps,
    /// A row of buttons.
    Buttons,
}

/// A setting's place on the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    pub panel: Panel,
    /// Its order in the panel, lowest first; the declaration leaves gaps, so a new setting takes a
    /// rank between its neighbours' and the links' order (the declaration's) stays as it is.
    pub rank: u16,
    pub look: Look,
}
