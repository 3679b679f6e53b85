# A thin wrapper around CMake. `make render` and `make test` are the Quick start.
BUILD       ?= build
GENERATOR   ?= Ninja
CMAKE_FLAGS ?=
JOBS        ?= $(shell nproc)
ifdef CI
  # CI builds one GPU architecture to save time; users get the full list.
  CMAKE_FLAGS += -DCMAKE_CUDA_ARCHITECTURES=90
endif

.PHONY: all deps configure build render test clean

all: build

deps:
	@bash tools/install-deps.sh

configure: deps
	cmake -S . -B $(BUILD) -G $(GENERATOR) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# Renders the built-in default scene and prints the PNG's path (last line), after where
# the program is and what to try next. Builds only the renderer: the tests' binaries wait
# for `make test`.
render: configure
	cmake --build $(BUILD) -j $(JOBS) --target stencilrt
	@echo "built $(CURDIR)/$(BUILD)/stencilrt; to call it as stencilrt:"
	@echo "  export PATH=\"$(CURDIR)/$(BUILD):\$$PATH\""
	@echo "then try: stencilrt render scenes/glass.json -o glass.png   (or: stencilrt view, stencilrt bench)"
	./$(BUILD)/stencilrt render -o $(BUILD)/default.png

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD)
