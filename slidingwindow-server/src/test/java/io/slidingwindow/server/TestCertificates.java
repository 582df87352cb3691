package io.slidingwindow.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A certificate authority, a server certificate for {@code localhost} and {@code 127.0.0.1}, and a
 * client certificate, all made for one test in PEM files (keys in PKCS#8), valid for a day.
 */
record TestCertificates(
    Path caCert, Path serverCert, Path serverKey, Path clientCert, Path clientKey) {

  /** Makes the certificates and writes them into {@code dir}. */
  static TestCertificates write(Path dir) throws IOException, GeneralSecurityException {
    try {
      KeyPair ca = keys();
      X500Name caName = new X500Name("CN=slidingwindow test CA");
      X509Certificate caCert =
          sign(
              builder(caName, caName, ca, 1)
                  .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
                  .addExtension(
                      Extension.keyUsage,
                      true,
                      new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign)),
              ca.getPrivate());
      KeyPair server = keys();
      X509Certificate serverCert =
          sign(
              builder(caName, new X500Name("CN=localhost"), server, 2)
                  .addExtension(
                      Extension.subjectAlternativeName,
                      false,
                      new GeneralNames(
                          new GeneralName[] {
                            new GeneralName(GeneralName.dNSName, "localhost"),
                            new GeneralName(GeneralName.iPAddress, "127.0.0.1")
                          }))
                  .addExtension(
                      Extension.extendedKeyUsage,
                      false,
                      new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth)),
              ca.getPrivate());
      KeyPair client = keys();
      X509Certificate clientCert =
          sign(
              builder(caName, new X500Name("CN=envoy"), client, 3)
                  .addExtension(
                      Extension.extendedKeyUsage,
                      false,
                      new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth)),
              ca.getPrivate());
      TestCertificates files =
          new TestCertificates(
              dir.resolve("ca.pem"),
              dir.resolve("server.pem"),
              dir.resolve("server-key.pem"),
              dir.resolve("client.pem"),
              dir.resolve("client-key.pem"));
      pem(files.caCert(), caCert);
      pem(files.serverCert(), serverCert);
      pem(files.serverKey(), new JcaPKCS8Generator(server.getPrivate(), null).generate());
      pem(files.clientCert(), clientCert);
      pem(files.clientKey(), new JcaPKCS8Generator(client.getPrivate(), null).generate());
      return files;
    } catch (org.bouncycastle.operator.OperatorCreationException e) {
      throw new GeneralSecurityException(e);
    }
  }

  /** A TLS context that trusts the test CA and, with {@code clientCertificate}, presents one. */
  SSLContext clientContext(boolean clientCertificate) throws IOException, GeneralSecurityException {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("ca", read(caCert));
    TrustManagerFactory trustManagers =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trustManagers.init(trust);
    KeyManagerFactory keyManagers = null;
    if (clientCertificate) {
      KeyStore keys = KeyStore.getInstance("PKCS12");
      keys.load(null, null);
      keys.setKeyEntry(
          "client", clientPrivateKey(), new char[0], new X509Certificate[] {read(clientCert)});
      keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keyManagers.init(keys, new char[0]);
    }
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(
        keyManagers == null ? null : keyManagers.getKeyManagers(),
        trustManagers.getTrustManagers(),
        null);
    return context;
  }

  private PrivateKey clientPrivateKey() throws IOException, GeneralSecurityException {
    String pem = Files.readString(clientKey);
    String base64 =
        pem.replace("-----BEGIN PRIVATE KEY-----", "")
            .replace("-----END PRIVATE KEY-----", "")
            .replaceAll("\\s", "");
    return java.security.KeyFactory.getInstance("EC")
        .generatePrivate(
            new java.security.spec.PKCS8EncodedKeySpec(
                java.util.Base64.getDecoder().decode(base64)));
  }

  private static X509Certificate read(Path pem) throws IOException, GeneralSecurityException {
    try (InputStream in = Files.newInputStream(pem)) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  private static KeyPair keys() throws GeneralSecurityException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    return generator.generateKeyPair();
  }

  private static X509v3CertificateBuilder builder(
      X500Name issuer, X500Name subject, KeyPair keys, long serial) {
    Instant now = Instant.now();
    return new JcaX509v3CertificateBuilder(
        issuer,
        BigInteger.valueOf(serial),
        Date.from(now.minus(Duration.ofHours(1))),
        Date.from(now.plus(Duration.ofDays(1))),
        subject,
        keys.getPublic());
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey issuerKey)
      throws GeneralSecurityException, org.bouncycastle.operator.OperatorCreationException {
    return new JcaX509CertificateConverter()
        .getCertificate(
            builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKey)));
  }

  private static void pem(Path file, Object value) throws IOException {
    try (Writer out = Files.newBufferedWriter(file, StandardCharsets.US_ASCII);
        JcaPEMWriter pem = new JcaPEMWriter(out)) {
      pem.writeObject(value);
    }
  }
}
