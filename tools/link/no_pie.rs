//! Build script shared by the Lambda functions (and the hello-world baseline they are
//! measured against): their executables are linked position-dependent (non-PIE) on
//! Linux, so a cold start does not relocate the whole binary at load time
//! (BENCHMARKS.md, cold start). The code stays position-independent; only the
//! package's binaries are affected, not its libraries, build scripts or proc-macros.

fn main() {
    println!("cargo:rerun-if-changed=../../tools/link/no_pie.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
