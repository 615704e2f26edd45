package dev.waybill.kernel;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Finds this machine's name: {@code HOSTNAME} or {@code COMPUTERNAME} from the environment, else
 * the local host name the network stack reports.
 *
 * @since 0.1
 */
public final class HostNames {

	private HostNames() {
	}

	/**
	 * Returns this machine's name.
	 * @return the host name, or {@code "unknown"} when nothing names it
	 */
	public static String local() {
		return resolve(System.getenv());
	}

	static String resolve(Map<String, String> environment) {
		String name = firstNonBlank(environment.get("HOSTNAME"), environment.get("COMPUTERNAME"));
		if (name != null) {
			return name;
		}
		try {
			return InetAddress.getLocalHost().getHostName();
		}
		catch (UnknownHostException ex) {
			return "unknown";
		}
	}

	private static @Nullable String firstNonBlank(@Nullable String... candidates) {
		for (String candidate : candidates) {
			if (candidate != null && !candidate.isBlank()) {
				return candidate.strip();
			}
		}
		return null;
	}

}
