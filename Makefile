# Makefile: the two commands of the quick start (make notebook, make test), make demo and the extra targets.
BUILD ?= build
JOBS ?= 2
# make notebook UI=classic: the lessons in Notebook 6 instead of JupyterLab.
UI ?= lab

.PHONY: all deps build build-app check test notebook demo bench fuzz valgrind soak classroom load clean

all: build

deps:
	@bash scripts/setup-deps.sh

# The optional parts of the build (CMakeLists.txt's options): make build and make test turn them all on.
WL_PARTS = WL_TESTS WL_PY_TESTS WL_SANITIZERS WL_XEUS WL_WASM WL_FUZZ
build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(WL_PARTS:%=-D%=ON)
	cmake --build $(BUILD) -j $(JOBS)

# What serving the lessons needs, and no more: the program with its kernel and the front end. A build folder that is
# not configured yet is configured without the optional parts (make build or make test adds them later).
build-app: deps
	test -f $(BUILD)/CMakeCache.txt || cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(WL_PARTS:%=-D%=OFF)
	cmake --build $(BUILD) -j $(JOBS) --target wordlab jupyterlab

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

# A classroom on this machine: JupyterHub on 127.0.0.1 serving the lessons to local students (Ctrl-C stops it).
classroom: build
	bash scripts/classroom.sh $(BUILD)

# The classroom load test (LOAD_SIZES, LOAD_THINK): simulated students on wordlab's lessons 01 and 03, then the
# course's cells on wordlab and on ipykernel + PyTorch, the like-for-like pair.
LOAD = /usr/bin/python3 tests/load/loadtest.py --build $(BUILD) --sizes $${LOAD_SIZES:-5,10,20,40,80,160} --think $${LOAD_THINK:-4}
load: build
	$(LOAD) --kernel wordlab --cells lessons --json $(BUILD)/load-wordlab-lessons.json
	$(LOAD) --kernel wordlab --cells course --json $(BUILD)/load-wordlab-course.json
	$(LOAD) --kernel python3 --cells course --json $(BUILD)/load-python3-course.json
