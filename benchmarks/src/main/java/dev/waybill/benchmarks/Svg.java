package dev.waybill.benchmarks;

import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * A minimal SVG document writer: rectangles, lines, circles and text, with every value escaped and
 * every coordinate written with one decimal in the root locale. Text stays text (no outlines) so
 * the charts can be read and searched on GitHub, which shows SVG images with the system's fonts.
 */
final class Svg {

	static final String FONT = "Helvetica, Arial, sans-serif";

	private final StringBuilder body = new StringBuilder();

	private final int width;

	private final int height;

	Svg(int width, int height) {
		this.width = width;
		this.height = height;
	}

	/**
	 * A filled rectangle; {@code tooltip} becomes its {@code <title>}, shown on hover.
	 */
	Svg rect(double x, double y, double w, double h, String fill, @Nullable String tooltip) {
		this.body.append("<rect x=\"").append(n(x)).append("\" y=\"").append(n(y)).append("\" width=\"")
			.append(n(Math.max(0, w))).append("\" height=\"").append(n(Math.max(0, h))).append("\" fill=\"")
			.append(escape(fill)).append('"');
		closeWithTooltip("rect", tooltip);
		return this;
	}

	/**
	 * A rectangle outline.
	 */
	Svg frame(double x, double y, double w, double h, String stroke) {
		this.body.append("<rect x=\"").append(n(x)).append("\" y=\"").append(n(y)).append("\" width=\"").append(n(w))
			.append("\" height=\"").append(n(h)).append("\" fill=\"none\" stroke=\"").append(escape(stroke))
			.append("\"/>\n");
		return this;
	}

	/**
	 * A line; {@code dash} is an SVG dash array such as {@code "5 3"}, or null for a solid line.
	 */
	Svg line(double x1, double y1, double x2, double y2, String stroke, double strokeWidth, @Nullable String dash) {
		this.body.append("<line x1=\"").append(n(x1)).append("\" y1=\"").append(n(y1)).append("\" x2=\"").append(n(x2))
			.append("\" y2=\"").append(n(y2)).append("\" stroke=\"").append(escape(stroke)).append("\" stroke-width=\"")
			.append(n(strokeWidth)).append('"');
		if (dash != null) {
			this.body.append(" stroke-dasharray=\"").append(escape(dash)).append('"');
		}
		this.body.append("/>\n");
		return this;
	}

	/**
	 * A line with a tooltip, for marks a reader may want to identify (target lines).
	 */
	Svg line(double x1, double y1, double x2, double y2, String stroke, double strokeWidth, @Nullable String dash,
			String tooltip) {
		this.body.append("<g>");
		line(x1, y1, x2, y2, stroke, strokeWidth, dash);
		this.body.append("<title>").append(escape(tooltip)).append("</title></g>\n");
		return this;
	}

	Svg circle(double cx, double cy, double r, String fill) {
		this.body.append("<circle cx=\"").append(n(cx)).append("\" cy=\"").append(n(cy)).append("\" r=\"").append(n(r))
			.append("\" fill=\"").append(escape(fill)).append("\"/>\n");
		return this;
	}

	/**
	 * Text; {@code anchor} is {@code start}, {@code middle} or {@code end}.
	 */
	Svg text(double x, double y, String text, double size, String anchor, String fill, boolean bold) {
		return text(x, y, text, size, anchor, fill, bold, 0);
	}

	/**
	 * Text rotated by {@code degrees} around its anchor point (e.g. -90 for a vertical axis label).
	 */
	Svg text(double x, double y, String text, double size, String anchor, String fill, boolean bold, double degrees) {
		this.body.append("<text x=\"").append(n(x)).append("\" y=\"").append(n(y)).append("\" font-size=\"").append(n(size))
			.append("\" text-anchor=\"").append(escape(anchor)).append("\" fill=\"").append(escape(fill)).append('"');
		if (bold) {
			this.body.append(" font-weight=\"bold\"");
		}
		if (degrees != 0) {
			this.body.append(" transform=\"rotate(").append(n(degrees)).append(' ').append(n(x)).append(' ').append(n(y))
				.append(")\"");
		}
		this.body.append('>').append(escape(text)).append("</text>\n");
		return this;
	}

	/**
	 * The whole document, with a white background so it reads the same on a dark page.
	 * @param title the document's title (what a screen reader announces)
	 * @return the SVG text
	 */
	String document(String title) {
		return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\""
				+ this.width + "\" height=\"" + this.height + "\" viewBox=\"0 0 " + this.width + " " + this.height
				+ "\" font-family=\"" + FONT + "\" role=\"img\">\n" + "<title>" + escape(title) + "</title>\n"
				+ "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n" + this.body + "</svg>\n";
	}

	private void closeWithTooltip(String element, @Nullable String tooltip) {
		if (tooltip == null) {
			this.body.append("/>\n");
		}
		else {
			this.body.append("><title>").append(escape(tooltip)).append("</title></").append(element).append(">\n");
		}
	}

	static String n(double value) {
		String text = String.format(Locale.ROOT, "%.1f", value);
		return text.endsWith(".0") ? text.substring(0, text.length() - 2) : text;
	}

	static String escape(String text) {
		StringBuilder out = new StringBuilder(text.length());
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			switch (c) {
				case '&' -> out.append("&amp;");
				case '<' -> out.append("&lt;");
				case '>' -> out.append("&gt;");
				case '"' -> out.append("&quot;");
				case '\'' -> out.append("&apos;");
				default -> {
					// XML 1.0 allows no control characters but tab, newline and carriage return.
					if (c >= 0x20 || c == '\t' || c == '\n' || c == '\r') {
						out.append(c);
					}
				}
			}
		}
		return out.toString();
	}

}
