//! Small components: generic inputs, the model picker, the results.

pub mod controls;
pub mod hub;
pub mod local;
pub mod measured;
pub mod model;
pub mod results;
