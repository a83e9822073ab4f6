# Writes the bundled demo clip after nertzref is linked (cmake -P, called from CMakeLists.txt).
# The clip uses the gnome-anglo card art from the card-art cache (NERTZ_CARDART, else
# XDG_CACHE_HOME or ~/.cache /nertzref/cardart); when the cache lacks it and rsvg-convert and the
# card packages are installed (scripts/setup.sh), renders just that design into the build folder;
# else nertzref paints the cards and says so in its log line.
# In: APP (nertzref), OUT (clip file), SRC (source root), BIN (this build folder).
set(art "$ENV{NERTZ_CARDART}")
if(art STREQUAL "")
  if(NOT "$ENV{XDG_CACHE_HOME}" STREQUAL "")
    set(art "$ENV{XDG_CACHE_HOME}/nertzref/cardart")
  else()
    set(art "$ENV{HOME}/.cache/nertzref/cardart")
  endif()
endif()
if(NOT EXISTS "${art}/gnome-anglo/backs/back.png")
  if(NOT EXISTS "${BIN}/cardart/gnome-anglo/backs/back.png")
    find_program(RSVG rsvg-convert)
    if(RSVG AND EXISTS /usr/share/aisleriot/cards)
      message(STATUS "demo clip: rendering the gnome-anglo card art into ${BIN}/cardart")
      execute_process(COMMAND bash "${SRC}/models/training/render_card_art.sh" "${BIN}/cardart" gnome-anglo
                      RESULT_VARIABLE rc OUTPUT_QUIET)
    endif()
  endif()
  if(EXISTS "${BIN}/cardart/gnome-anglo/backs/back.png")
    set(art "${BIN}/cardart")
  endif()
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env QT_QPA_PLATFORM=offscreen "NERTZ_CARDART=${art}" "${APP}" --write-demo-clip "${OUT}"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "writing the demo clip failed (${rc})")
endif()
