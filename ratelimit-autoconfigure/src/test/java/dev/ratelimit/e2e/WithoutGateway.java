package dev.ratelimit.e2e;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.testsupport.NettyLeakGuard;

/**
 * A class loader of the test class path without Spring Cloud Gateway's jars, for an
 * application that must start without the gateway: unlike hiding classes from a
 * filtering class loader, a class that links to the gateway fails to load here. Netty
 * alone comes from the test's class loader, so that {@link NettyLeakGuard} sees the
 * application's buffers (a second Netty would not take the guard's leak detector); Netty
 * links to no class of Spring's or the gateway's.
 */
final class WithoutGateway {

	private WithoutGateway() {
	}

	static ClassLoader classLoader() throws MalformedURLException {
		// Surefire runs tests from a manifest-only jar and gives the real class path here.
		String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
		List<URL> urls = new ArrayList<>();
		for (String entry : classPath.split(File.pathSeparator)) {
			String name = new File(entry).getName();
			if (!name.startsWith("spring-cloud-gateway") && !name.startsWith("spring-cloud-starter-gateway")) {
				urls.add(new File(entry).toURI().toURL());
			}
		}
		return NettyLeakGuard.requireGuarded(new SharingNetty(urls.toArray(new URL[0])));
	}

	private static final class SharingNetty extends URLClassLoader {

		SharingNetty(URL[] urls) {
			super(urls, ClassLoader.getPlatformClassLoader());
		}

		@Override
		protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
			if (name.startsWith("io.netty.")) {
				return WithoutGateway.class.getClassLoader().loadClass(name);
			}
			return super.loadClass(name, resolve);
		}

	}

}
