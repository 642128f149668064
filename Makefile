# Makefile: the two commands of the quick start (make notebook, make test), make demo and the extra targets.
BUILD ?= build
JOBS ?= 2

.PHONY: all deps build test notebook demo bench fuzz valgrind soak clean

all: build

deps:
	@bash scripts/setup-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

notebook: build
	bash scripts/notebook.sh $(BUILD)

# Serves the browser demo (build/demo) on 127.0.0.1:$(DEMO_PORT); any static server of that directory works too.
DEMO_PORT ?= 8000
demo: build
	/usr/bin/python3 scripts/serve-demo.py $(BUILD)/demo $(DEMO_PORT)

# Rebuilds notebooks/*.ipynb (with outputs) from lessons/*.wlab.
notebooks: build
	for f in lessons/*.wlab; do $(BUILD)/wordlab notebook "$$f" -o "notebooks/$$(basename "$${f%.wlab}").ipynb" || exit 1; done

bench: build
	bash tests/bench/run.sh $(BUILD)

clean:
	rm -rf $(BUILD)

fuzz: build
	bash tests/fuzz/build.sh $(BUILD)/fuzz
	bash tests/fuzz/run.sh $(BUILD)/fuzz seconds $${FUZZ_SECONDS:-60}

valgrind: build
	bash scripts/valgrind-units.sh $(BUILD)

soak: build
	/usr/bin/python3 tests/soak/soak.py $(BUILD)/wordlab
