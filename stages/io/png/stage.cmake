pacflow_stage_folder(ORDER 50
  SOURCES image.cpp canvas.cpp plot_drawing.cpp heatmap_panel.cpp comodulogram_plot.cpp comodulogram_grid.cpp erpac_plot.cpp
    png_figures.cpp
    png_sink.cpp
  ELEMENTS png_sink.hpp:PngSink
  TESTS canvas_test.cpp comodulogram_plot_test.cpp comodulogram_grid_test.cpp png_sink_test.cpp)
