# Makefile: the two commands of the quick start (make notebook, make test), make demo and the extra targets.
BUILD ?= build
JOBS ?= 2
# make notebook UI=notebook: the lessons in Notebook 7 instead of JupyterLab 4.
UI ?= lab

.PHONY: all deps build build-app check test notebook demo lite lite-serve test-lite bench fuzz valgrind soak classroom load clean

all: build

deps:
	@bash scripts/setup-deps.sh

# The optional parts of the build (CMakeLists.txt's options): make build and make test turn them all on.
WL_PARTS = WL_TESTS WL_PY_TESTS WL_SANITIZERS WL_XEUS WL_WASM WL_FUZZ
build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(WL_PARTS:%=-D%=ON)
	cmake --build $(BUILD) -j $(JOBS)

# Only what serving the lessons needs: the notebook's Debian packages, the program, the Python environment and the
# JupyterLab extension. The optional parts a build folder was not configured with are off (a build that `make test`
# configured keeps its other parts, unbuilt here).
build-app:
	@bash scripts/setup-deps.sh notebook
	@off="$$(for p in $(WL_PARTS); do grep -q "^$$p:" $(BUILD)/CMakeCache.txt 2>/dev/null || echo -D$$p=OFF; done)"; \
	  [ -z "$$off" ] || cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $$off
	cmake --build $(BUILD) -j $(JOBS) --target wordlab labextension

# The C-only loop: the unit tests and their sanitizer copies in build/check, configured without the other parts;
# needs only the compiler and the runtime's libraries (no setup-deps run). One test: ctest --test-dir build/check -R NAME.
CHECK_BUILD ?= build/check
check:
	cmake -S . -B $(CHECK_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(WL_PARTS:%=-D%=OFF) -DWL_TESTS=ON -DWL_SANITIZERS=ON
	cmake --build $(CHECK_BUILD) -j $(JOBS) --target unit_tests
	cd $(CHECK_BUILD) && ctest --output-on-failure -j $(JOBS) -L 'unit|asan'

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

notebook: build-app
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
