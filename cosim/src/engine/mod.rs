//! The engine: a run from stimulus to verdict, with no output of its own.
//!
//! - [`stim`], [`stream`], [`directed`]: the stimulus, one cycle's input at a time with each
//!   operation's family (families interleaved, bubbles, resets, drain), corner cases mixed in;
//! - [`chunk`]: a run as a list of chunks, and its shards;
//! - [`batch`]: cycles moved together, encoded for the RTL beside the reference's frames;
//! - [`rtl`]: the Verilated RTL behind a safe, batched API, and the variants built in;
//!   [`dut`]: a team's design loaded as the RTL side;
//! - [`golden`]: the reference, which only computes (the model, or another RTL variant);
//!   [`assemble`]: the model's frames from per-operation banks, the lane engine's groups;
//! - [`frame`]: what is compared each cycle, and how a difference is pinned to a field;
//! - [`lockstep`]: feeds both sides and hands the frames to the scoreboard and to a
//!   [`subscriber`];
//! - [`scoreboard`], [`ports`]: how frames are judged (whole registers, or the retired
//!   results under the ports rules) and the divergences;
//! - [`sides`]: the two sides of a comparison as the command line names them;
//! - [`regress`]: the chunks run by several workers, each with its own sides;
//! - [`replay`]: one operation replayed alone from reset on both sides.

pub mod assemble;
pub mod batch;
pub mod chunk;
pub mod directed;
pub mod dut;
pub mod frame;
pub mod golden;
pub mod lockstep;
pub mod ports;
pub mod regress;
pub mod replay;
pub mod rtl;
pub mod scoreboard;
pub mod sides;
pub mod stim;
pub mod stream;
pub mod subscriber;
