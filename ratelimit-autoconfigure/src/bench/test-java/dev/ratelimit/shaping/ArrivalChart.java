package dev.ratelimit.shaping;

import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.BitmapEncoder.BitmapFormat;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.XYSeries.XYSeriesRenderStyle;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The upstream's arrivals per bin over a run, one step line per arm, the first (the
 * shaped) drawn widest, over the count a bin holds at the drain rate.
 */
final class ArrivalChart {

	/**
	 * The first arm's (the shaped) colour, then the others'.
	 */
	private static final Color[] COLORS = { new Color(0x1f, 0x5f, 0xbf), new Color(0xe6, 0x7e, 0x22) };

	private ArrivalChart() {
	}

	static void write(Path file, String title, List<ArmResult> arms, double drainRatePerSecond) {
		double perBinAtRate = drainRatePerSecond * ArmResult.BIN_MILLIS / 1000;
		System.setProperty("java.awt.headless", "true");
		XYChart chart = new XYChartBuilder().width(1100)
			.height(520)
			.title(title)
			.xAxisTitle("seconds since the run's start")
			.yAxisTitle("arrivals per " + ArmResult.BIN_MILLIS + " ms")
			.build();
		chart.getStyler().setLegendPosition(LegendPosition.InsideNE);
		chart.getStyler().setChartBackgroundColor(Color.WHITE);
		chart.getStyler().setDefaultSeriesRenderStyle(XYSeriesRenderStyle.Step);
		chart.getStyler().setMarkerSize(0);
		chart.getStyler().setXAxisTickMarkSpacingHint(60);
		int bins = arms.get(0).bins().length;
		double[] seconds = new double[bins];
		for (int i = 0; i < bins; i++) {
			seconds[i] = i * ArmResult.BIN_MILLIS / 1000.0;
		}
		// First, so that the arms' lines are drawn over it.
		XYSeries rate = chart.addSeries("drain rate, " + Math.round(drainRatePerSecond) + "/s",
				new double[] { 0, seconds[bins - 1] }, new double[] { perBinAtRate, perBinAtRate });
		rate.setXYSeriesRenderStyle(XYSeriesRenderStyle.Line);
		rate.setMarker(SeriesMarkers.NONE);
		rate.setLineColor(Color.LIGHT_GRAY);
		rate.setLineStyle(SeriesLines.DASH_DASH);
		rate.setLineWidth(1);
		for (int a = 0; a < arms.size(); a++) {
			ArmResult arm = arms.get(a);
			double[] counts = new double[bins];
			for (int i = 0; i < bins; i++) {
				counts[i] = arm.bins()[i];
			}
			XYSeries series = chart.addSeries(arm.arm(), seconds, counts);
			series.setMarker(SeriesMarkers.NONE);
			series.setLineColor(COLORS[a % COLORS.length]);
			series.setLineWidth((a == 0) ? 2.5f : 1.5f);
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
