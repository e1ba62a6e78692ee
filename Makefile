# vram-budget: the two commands a newcomer needs, and a few more. Each target is a step in scripts/dev.sh.
.PHONY: serve test dist watch setup bench
serve:   ## install what is missing, build the page, serve it on http://127.0.0.1:8080
	@bash scripts/dev.sh serve
test:    ## everything CI checks, fastest first
	@bash scripts/dev.sh test
dist:    ## the static site for hosting, in dist/
	@bash scripts/dev.sh dist
watch:   ## rebuild on change while developing (trunk serve)
	@bash scripts/dev.sh watch
setup:   ## only install the tools
	@bash scripts/dev.sh setup
bench:   ## engine and browser benchmarks (see BENCHMARKS.md)
	@bash scripts/dev.sh bench
.PHONY: validate measure llamacpp params
validate: ## rewrite docs/accuracy.md and the compiled error bands: the engine against the measured cases in validation/
	@bash scripts/dev.sh validate
measure: ## rerun the CPU measurements of docs/measure/runs.json into docs/measure/results/ (installs .venv-measure)
	@bash scripts/dev.sh measure
llamacpp: ## llama.cpp's own buffer sizes on small GGUF models and vision projectors, into tools/llamacpp/results.json and mmproj_results.json
	@bash scripts/dev.sh llamacpp
params: ## transformers' parameter counts of the hybrid config fixtures, built on the meta device (installs .venv-measure)
	@bash scripts/dev.sh params
