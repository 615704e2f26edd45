package dev.waybill.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Locale;

/**
 * What the figures were measured on: processors, CPU model, memory, Java, PostgreSQL and RabbitMQ
 * versions.
 */
final class Machine {

	private Machine() {
	}

	static String describe(BenchContext context) {
		return String.format(Locale.ROOT, "%d processors (%s), %s RAM, Java %s, PostgreSQL %s, RabbitMQ %s",
				Runtime.getRuntime().availableProcessors(), cpuModel(), memory(), System.getProperty("java.version"),
				postgresVersion(context), rabbitVersion(context));
	}

	private static String cpuModel() {
		return procLine(Path.of("/proc/cpuinfo"), "model name");
	}

	private static String memory() {
		String total = procLine(Path.of("/proc/meminfo"), "MemTotal");
		try {
			long kib = Long.parseLong(total.replaceAll("[^0-9]", ""));
			return String.format(Locale.ROOT, "%.0f GiB", kib / 1024.0 / 1024.0);
		}
		catch (NumberFormatException ex) {
			return total;
		}
	}

	private static String procLine(Path file, String key) {
		try {
			for (String line : Files.readAllLines(file)) {
				if (line.startsWith(key)) {
					return line.substring(line.indexOf(':') + 1).trim();
				}
			}
		}
		catch (IOException ex) {
			// not Linux
		}
		return "unknown";
	}

	private static String postgresVersion(BenchContext context) {
		try (Connection connection = context.postgres().connect(); Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery("SHOW server_version")) {
			result.next();
			return result.getString(1).split(" ")[0];
		}
		catch (Exception ex) {
			return "unknown";
		}
	}

	private static String rabbitVersion(BenchContext context) {
		try (com.rabbitmq.client.Connection connection = context.rabbit().connect()) {
			return String.valueOf(connection.getServerProperties().get("version"));
		}
		catch (Exception ex) {
			return "unknown";
		}
	}

}
