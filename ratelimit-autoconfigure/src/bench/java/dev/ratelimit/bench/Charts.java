package dev.ratelimit.bench;

import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.BitmapEncoder.BitmapFormat;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler.LegendPosition;

/**
 * Grouped bar charts as PNG, the one chart shape every section uses.
 */
public final class Charts {

	private Charts() {
	}

	/**
	 * Bars of each series over the categories. A missing value (NaN) leaves a gap; on a
	 * logarithmic axis, which cannot show gaps, a category where some series has no
	 * value is left out.
	 * @param logarithmic whether the value axis is logarithmic
	 */
	public static void bars(Path file, String title, String valueAxis, List<String> categories,
			Map<String, List<Double>> series, boolean logarithmic) {
		List<String> shownCategories = categories;
		Map<String, List<Double>> shownSeries = series;
		if (logarithmic) {
			List<Integer> complete = new ArrayList<>();
			for (int i = 0; i < categories.size(); i++) {
				int index = i;
				if (series.values().stream().allMatch((values) -> values.get(index) > 0)) {
					complete.add(i);
				}
			}
			shownCategories = complete.stream().map(categories::get).toList();
			shownSeries = new LinkedHashMap<>();
			for (Map.Entry<String, List<Double>> entry : series.entrySet()) {
				shownSeries.put(entry.getKey(), complete.stream().map(entry.getValue()::get).toList());
			}
		}
		System.setProperty("java.awt.headless", "true");
		CategoryChart chart = new CategoryChartBuilder().width(1100)
			.height(560)
			.title(title)
			.xAxisTitle("")
			.yAxisTitle(valueAxis)
			.build();
		chart.getStyler().setLegendPosition(LegendPosition.OutsideE);
		chart.getStyler().setChartBackgroundColor(Color.WHITE);
		chart.getStyler().setYAxisLogarithmic(logarithmic);
		if (logarithmic) {
			// Bars start at the axis minimum, which must be positive on a log axis.
			double smallest = shownSeries.values()
				.stream()
				.flatMap(List::stream)
				.mapToDouble(Double::doubleValue)
				.min()
				.orElse(1);
			chart.getStyler().setYAxisMin(Math.pow(10, Math.floor(Math.log10(smallest))));
		}
		chart.getStyler().setOverlapped(false);
		chart.getStyler().setAvailableSpaceFill(0.85);
		if (shownCategories.size() > 7) {
			chart.getStyler().setXAxisLabelRotation(30);
		}
		for (Map.Entry<String, List<Double>> entry : shownSeries.entrySet()) {
			List<Double> shown = new ArrayList<>();
			for (Double value : entry.getValue()) {
				shown.add((value == null || value.isNaN()) ? null : value);
			}
			chart.addSeries(entry.getKey(), shownCategories, shown);
		}
		try {
			BitmapEncoder.saveBitmap(chart, file.toString(), BitmapFormat.PNG);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("cannot write chart " + file, ex);
		}
		System.out.println("wrote " + file);
	}

}
