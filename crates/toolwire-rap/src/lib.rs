//! The Reactive Agent Protocol transport of toolwire (modules follow).
