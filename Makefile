# Makefile: the two commands of the quick start (make notebook, make test), make demo and the extra targets.
BUILD ?= build
JOBS ?= 2
# make notebook UI=notebook: the lessons in Notebook 7 instead of JupyterLab 4.
UI ?= lab

.PHONY: all deps build test notebook demo lite lite-serve test-lite bench fuzz valgrind soak classroom load clean

all: build

deps:
	@bash scripts/setup-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWL_XEUS=ON -DWL_WASM=ON -DWL_SANITIZERS=ON
	cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Only what serving the lessons needs: the notebook's Debian packages, the program, the Python environment and the
# JupyterLab extension (a build that `make test` configured keeps its other parts, unbuilt here).
notebook:
	@bash scripts/setup-deps.sh notebook
	@[ -f $(BUILD)/CMakeCache.txt ] || cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWL_XEUS=OFF -DWL_WASM=OFF -DWL_SANITIZERS=OFF
	cmake --build $(BUILD) -j $(JOBS) --target wordlab labextension
	UI=$(UI) bash scripts/notebook.sh $(BUILD)

# Serves the browser demo (build/demo) on 127.0.0.1:$(DEMO_PORT); any static server of that directory works too.
DEMO_PORT ?= 8000
demo: build
	/usr/bin/python3 scripts/serve-demo.py $(BUILD)/demo $(DEMO_PORT)

# build/lite: the JupyterLite site of the lessons, the wordlab kernel running in the browser (lite/build.sh);
# make lite-serve serves it on 127.0.0.1:$(LITE_PORT) with the headers that make the page cross-origin isolated.
LITE_PORT ?= 8001
lite: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(BUILD) -j $(JOBS) --target lite
lite-serve: lite
	/usr/bin/python3 scripts/serve-demo.py $(BUILD)/lite $(LITE_PORT)
# Every lesson in the Lite site against the native kernel, cell by cell (`make test` runs lesson 04 only).
test-lite: build
	WL_BUILD_DIR=$(BUILD) bash tests/browser/lite.sh $(BUILD)/lite full

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

# A classroom on this machine (as root): JupyterHub on 127.0.0.1:8700 (PORT=), each student a Unix user of their own,
# a generated class password and teacher password (scripts/classroom.sh; Ctrl-C stops it).
classroom: build
	bash scripts/classroom.sh $(BUILD)

# The classroom load test (LOAD_SIZES, LOAD_THINK): simulated students on wordlab's lessons 01 and 03, then the
# course's cells on wordlab and on ipykernel + PyTorch, the like-for-like pair.
LOAD = /usr/bin/python3 tests/load/loadtest.py --build $(BUILD) --sizes $${LOAD_SIZES:-10,20,40,80} --think $${LOAD_THINK:-4} --keep-going
load: build
	$(LOAD) --kernel wordlab --cells lessons --json $(BUILD)/load-wordlab-lessons.json
	$(LOAD) --kernel wordlab --cells course --json $(BUILD)/load-wordlab-course.json
	$(LOAD) --kernel python3 --cells course --json $(BUILD)/load-python3-course.json
