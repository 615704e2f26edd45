package dev.waybill.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The messages Waybill's main code writes for an operator, read from the library modules' sources:
 * every WARN and ERROR log call, every exception thrown by the start-up code (the
 * {@code autoconfigure} packages) and every {@code FailureAnalysis}. A message is its constant
 * skeleton: the text of its string literals, with {@link #VALUE} where an expression fills in a
 * value. A call whose message is a local variable is read from that variable's assignment.
 */
final class MainMessages {

	/** Stands for a value the code fills in. */
	static final char VALUE = '\u0000';

	private static final Set<String> NOT_LIBRARIES = Set.of("samples", "benchmarks", "waybill-docs", "demo");

	private static final Pattern LOG_CALL = Pattern.compile("\\b\\w*(?:log|Log|LOG)\\w*\\.(warn|error)\\(");

	private static final Pattern THROW = Pattern.compile("throw new (\\w+)\\(");

	private static final Pattern ANALYSIS = Pattern.compile("new FailureAnalysis\\(");

	private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_]\\w*");

	/**
	 * A message of the main code.
	 * @param source where it is written, {@code module/.../File.java:line}
	 * @param kind {@code WARN} or {@code ERROR} for a log line, else {@code exception} or {@code analysis}
	 * @param skeleton its constant text, {@link #VALUE} for each value filled in
	 */
	record Message(String source, String kind, String skeleton) {

		/** The skeleton with {@code <...>} for the values, as the troubleshooting page writes them. */
		String shown() {
			return this.skeleton.replace(String.valueOf(VALUE), "<...>");
		}

		/** How much of the message is constant text. */
		int constantLength() {
			return this.skeleton.replace(String.valueOf(VALUE), "").replaceAll("[\\s\\p{Punct}]", "").length();
		}

	}

	private MainMessages() {
	}

	static List<Message> read() throws IOException {
		List<Message> messages = new ArrayList<>();
		for (Path file : sources()) {
			String text = Files.readString(file, StandardCharsets.UTF_8);
			String name = DocumentLinksTests.ROOT.relativize(file).toString();
			collect(messages, name, text, LOG_CALL, "log");
			if (name.contains("/autoconfigure/")) {
				Matcher thrown = THROW.matcher(text);
				while (thrown.find()) {
					// Spring Boot's "Property <name> with value '<value>' is invalid: <reason>", one entry for all.
					if (!thrown.group(1).equals("InvalidConfigurationPropertyValueException")) {
						add(messages, name, text, thrown.end() - 1, "exception");
					}
				}
			}
			collect(messages, name, text, ANALYSIS, "analysis");
		}
		return messages;
	}

	private static void collect(List<Message> messages, String name, String text, Pattern call, String kind) {
		Matcher m = call.matcher(text);
		while (m.find()) {
			add(messages, name, text, m.end() - 1, (m.groupCount() > 0) ? m.group(1).toUpperCase(Locale.ROOT) : kind);
		}
	}

	private static void add(List<Message> messages, String name, String text, int open, String kind) {
		List<String> arguments = arguments(text, open);
		// A failure analysis's description is its first argument; the second, its action, is not a message.
		String argument = kind.equals("analysis") ? arguments.get(0) : messageArgument(arguments);
		if (argument == null) {
			return;
		}
		if (IDENTIFIER.matcher(argument.strip()).matches()) {
			argument = assignment(text.substring(0, open), argument.strip());
			if (argument == null) {
				return;
			}
		}
		String skeleton = skeleton(argument);
		if (skeleton.indexOf(VALUE) != 0 || skeleton.length() > 1) {
			int line = (int) text.substring(0, open).chars().filter((c) -> c == '\n').count() + 1;
			messages.add(new Message(name + ":" + line, kind, skeleton));
		}
	}

	/** The library modules' main sources. */
	private static List<Path> sources() throws IOException {
		List<Path> sources = new ArrayList<>();
		try (Stream<Path> modules = Files.list(DocumentLinksTests.ROOT)) {
			for (Path module : modules.filter((m) -> !NOT_LIBRARIES.contains(m.getFileName().toString())).toList()) {
				Path main = module.resolve("src/main/java");
				if (Files.isDirectory(main)) {
					try (Stream<Path> files = Files.walk(main)) {
						files.filter((f) -> f.toString().endsWith(".java")).sorted().forEach(sources::add);
					}
				}
			}
		}
		return sources;
	}

	/** The top-level arguments of the call whose parenthesis opens at {@code open}. */
	static List<String> arguments(String text, int open) {
		List<String> arguments = new ArrayList<>();
		int depth = 0;
		int start = open + 1;
		for (int i = open; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == '"' || c == '\'') {
				i = endOfLiteral(text, i);
			}
			else if (c == '(' || c == '{' || c == '[') {
				depth++;
			}
			else if (c == ')' || c == '}' || c == ']') {
				if (--depth == 0) {
					arguments.add(text.substring(start, i));
					return arguments;
				}
			}
			else if (c == ',' && depth == 1) {
				arguments.add(text.substring(start, i));
				start = i + 1;
			}
		}
		return arguments;
	}

	/** The first argument with a string literal, else a lone variable; {@code null} if neither. */
	private static String messageArgument(List<String> arguments) {
		for (String argument : arguments) {
			if (argument.indexOf('"') >= 0) {
				return argument;
			}
		}
		return (!arguments.isEmpty() && IDENTIFIER.matcher(arguments.get(0).strip()).matches()) ? arguments.get(0) : null;
	}

	/** The expression last assigned to a local {@code String} variable before the call. */
	private static String assignment(String before, String variable) {
		Matcher m = Pattern.compile("(?:String|StringBuilder|var)\\s+" + variable + "\\s*=").matcher(before);
		int at = -1;
		while (m.find()) {
			at = m.end();
		}
		if (at < 0) {
			return null;
		}
		int end = at;
		while (end < before.length() && before.charAt(end) != ';') {
			end = (before.charAt(end) == '"') ? endOfLiteral(before, end) + 1 : end + 1;
		}
		return before.substring(at, end);
	}

	/** The literals' text in order, {@link #VALUE} for each run of anything else but {@code +}. */
	static String skeleton(String expression) {
		StringBuilder skeleton = new StringBuilder();
		StringBuilder other = new StringBuilder();
		for (int i = 0; i < expression.length(); i++) {
			char c = expression.charAt(i);
			if (c == '"') {
				flush(skeleton, other);
				int end = endOfLiteral(expression, i);
				skeleton.append(unescape(expression.substring(i + 1, end)));
				i = end;
			}
			else {
				other.append(c);
			}
		}
		flush(skeleton, other);
		return skeleton.toString();
	}

	private static void flush(StringBuilder skeleton, StringBuilder other) {
		String code = other.toString().replace("+", "").strip();
		if (!code.isEmpty() && (skeleton.isEmpty() || skeleton.charAt(skeleton.length() - 1) != VALUE)) {
			skeleton.append(VALUE);
		}
		other.setLength(0);
	}

	private static int endOfLiteral(String text, int open) {
		char quote = text.charAt(open);
		for (int i = open + 1; i < text.length(); i++) {
			if (text.charAt(i) == '\\') {
				i++;
			}
			else if (text.charAt(i) == quote) {
				return i;
			}
		}
		return text.length() - 1;
	}

	private static String unescape(String literal) {
		return literal.replace("\\n", "\n").replace("\\t", "\t").replace("\\\"", "\"").replace("\\'", "'")
			.replace("\\\\", "\\");
	}

}
