# Finds the OpenCV modules nertzref uses from Debian's split -dev packages (which ship no
# OpenCVConfig.cmake) and defines one imported target per module: OpenCV::core, OpenCV::imgproc, ...
# Never opencv_highgui: it loads Qt5 beside our Qt6.
include_guard(GLOBAL)

find_path(NERTZ_OPENCV_INCLUDE_DIR opencv2/core.hpp PATH_SUFFIXES opencv4 REQUIRED)

function(nertz_find_opencv_module module)
    if(TARGET OpenCV::${module})
        return()
    endif()
    find_library(NERTZ_OPENCV_${module}_LIBRARY NAMES opencv_${module})
    if(NOT NERTZ_OPENCV_${module}_LIBRARY)
        message(FATAL_ERROR "OpenCV module '${module}' not found: install libopencv-${module}-dev (scripts/setup.sh)")
    endif()
    add_library(OpenCV::${module} UNKNOWN IMPORTED GLOBAL)
    set_target_properties(OpenCV::${module} PROPERTIES
        IMPORTED_LOCATION "${NERTZ_OPENCV_${module}_LIBRARY}"
        INTERFACE_INCLUDE_DIRECTORIES "${NERTZ_OPENCV_INCLUDE_DIR}")
endfunction()

foreach(m core imgproc imgcodecs videoio dnn ml features2d calib3d flann)
    nertz_find_opencv_module(${m})
endforeach()
