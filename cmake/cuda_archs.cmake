# srt_gpus_of_this_machine(OUT): the compute capabilities of this machine's NVIDIA GPUs
# that this nvcc compiles for, as CMake architectures ("90;86"), each once; empty where
# there is no GPU, no driver, no nvidia-smi, or a driver too old to report them (then the
# build holds PTX alone, which any driver compiles at first use).
# nvidia-smi, not CMake's "native": that fails the configure on a machine without a GPU,
# and the same `make render` must build there too.
function(srt_gpus_of_this_machine out)
  set(found "")
  find_program(SRT_NVIDIA_SMI nvidia-smi)
  if(SRT_NVIDIA_SMI)
    execute_process(COMMAND "${SRT_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE caps RESULT_VARIABLE rc ERROR_QUIET TIMEOUT 20)
    execute_process(COMMAND "${CMAKE_CUDA_COMPILER}" --list-gpu-code
                    OUTPUT_VARIABLE known ERROR_QUIET)
    if(rc EQUAL 0)
      string(REPLACE "\n" ";" caps "${caps}")
      foreach(cap IN LISTS caps)
        string(STRIP "${cap}" cap)
        if(cap MATCHES "^([0-9]+)\\.([0-9])$")
          set(arch "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
          if(known MATCHES "sm_${arch}([^0-9]|$)")
            list(APPEND found "${arch}")
          else()
            message(WARNING "stencilrt: this machine's GPU of compute capability ${cap} is one that nvcc "
                            "${CMAKE_CUDA_COMPILER_VERSION} does not compile for; its kernels will not run there")
          endif()
        endif()
      endforeach()
      list(REMOVE_DUPLICATES found)
    endif()
  endif()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()
