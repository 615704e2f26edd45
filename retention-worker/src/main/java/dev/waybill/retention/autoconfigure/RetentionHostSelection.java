package dev.waybill.retention.autoconfigure;

import java.util.List;
import java.util.Locale;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.env.Environment;

import dev.waybill.kernel.HostNames;

/**
 * Whether the retention worker runs on this host, and why: it runs when
 * {@code waybill.retention.enabled} is not {@code false} and {@code waybill.retention.machine-names}
 * is empty or contains this host's name, compared case-insensitively.
 *
 * @param hostName this host's name
 * @param source where the name came from
 * @param runs whether the worker runs here
 * @param reason why it does or does not
 * @since 0.1
 */
record RetentionHostSelection(String hostName, String source, boolean runs, String reason) {

	/**
	 * Decides from the environment's {@code waybill.retention.*} properties.
	 * @param environment the environment
	 * @return the decision
	 * @throws InvalidConfigurationPropertyValueException when a machine name is blank
	 */
	public static RetentionHostSelection resolve(Environment environment) {
		Binder binder = Binder.get(environment);
		boolean enabled = binder.bind(WaybillRetentionProperties.ENABLED_PROPERTY, Boolean.class).orElse(true);
		List<String> names = binder.bind(WaybillRetentionProperties.MACHINE_NAMES_PROPERTY, Bindable.listOf(String.class))
			.orElse(List.of());
		for (int i = 0; i < names.size(); i++) {
			if (names.get(i) == null || names.get(i).isBlank()) {
				String property = WaybillRetentionProperties.MACHINE_NAMES_PROPERTY + "[" + i + "]";
				throw new InvalidConfigurationPropertyValueException(property, names.get(i),
						"A machine name must not be blank. Remove the entry from "
								+ WaybillRetentionProperties.MACHINE_NAMES_PROPERTY + " or set it to a host name such as 'orders-1'.");
			}
		}
		String configured = binder.bind(WaybillRetentionProperties.MACHINE_NAME_PROPERTY, String.class).orElse(null);
		HostName host = hostName(configured, environment);
		if (!enabled) {
			return new RetentionHostSelection(host.name(), host.source(), false,
					WaybillRetentionProperties.ENABLED_PROPERTY + " is false");
		}
		if (names.isEmpty()) {
			return new RetentionHostSelection(host.name(), host.source(), true,
					WaybillRetentionProperties.MACHINE_NAMES_PROPERTY + " is empty, so every host runs it");
		}
		String lower = host.name().toLowerCase(Locale.ROOT);
		boolean listed = names.stream().anyMatch((name) -> name.strip().toLowerCase(Locale.ROOT).equals(lower));
		return new RetentionHostSelection(host.name(), host.source(), listed, WaybillRetentionProperties.MACHINE_NAMES_PROPERTY
				+ " " + names + (listed ? " contains it" : " does not contain it"));
	}

	private static HostName hostName(@Nullable String configured, Environment environment) {
		if (configured != null) {
			if (configured.isBlank()) {
				throw new InvalidConfigurationPropertyValueException(WaybillRetentionProperties.MACHINE_NAME_PROPERTY,
						configured, "A machine name must not be blank. Set " + WaybillRetentionProperties.MACHINE_NAME_PROPERTY
								+ " to a name such as 'orders-1', or remove it to use the host's own name.");
			}
			return new HostName(configured.strip(), WaybillRetentionProperties.MACHINE_NAME_PROPERTY);
		}
		for (String variable : new String[] { "HOSTNAME", "COMPUTERNAME" }) {
			String value = environment.getProperty(variable);
			if (value != null && !value.isBlank()) {
				return new HostName(value.strip(), "environment variable " + variable);
			}
		}
		return new HostName(HostNames.local(), "local host name");
	}

	/**
	 * Returns the start-up log line.
	 * @return e.g. {@code Waybill retention worker runs on host 'orders-1' (from ...): ...}
	 */
	public String describe() {
		return "Waybill retention worker " + (this.runs ? "runs" : "does not run") + " on host '" + this.hostName
				+ "' (name from " + this.source + "): " + this.reason;
	}

	private record HostName(String name, String source) {
	}

}
