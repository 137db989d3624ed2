# `sam build` (BuildMethod: makefile, in this directory: samconfig.toml's
# build_in_source) runs `make build-<LogicalId>` once per function, with ARTIFACTS_DIR
# set to that function's folder under .aws-sam/build. Every target runs the same one
# cargo build of every function crate (functions/*) for Lambda's arm64: the first
# compiles the workspace once, the others find it done in about a second, and each
# copies its own binary. `ScoreMatchFunction` runs the binary `score-match`.
#
#   make build-ScoreMatchFunction ARTIFACTS_DIR=/tmp/out   # what sam build runs
#   make lambdas                                           # every function, no copy

CARGO_LAMBDA ?= cargo lambda
# Where cargo-lambda puts each binary (<dir>/<binary>/bootstrap), whatever CARGO_TARGET_DIR says.
LAMBDA_DIR ?= target/lambda
FUNCTIONS := $(sort $(notdir $(patsubst %/Cargo.toml,%,$(wildcard functions/*/Cargo.toml))))
# ScoreMatchFunction -> score-match
binary = $(shell echo '$(1)' | sed -E 's/Function$$//; s/([a-z0-9])([A-Z])/\1-\2/g' | tr 'A-Z' 'a-z')

.PHONY: lambdas
lambdas:
	$(CARGO_LAMBDA) build --profile deploy --arm64 --locked --lambda-dir $(LAMBDA_DIR) $(addprefix -p ,$(FUNCTIONS))

build-%: lambdas
	test -n "$(ARTIFACTS_DIR)"
	cp $(LAMBDA_DIR)/$(call binary,$*)/bootstrap "$(ARTIFACTS_DIR)/bootstrap"
