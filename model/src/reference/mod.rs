//! Independent references (in progress).
